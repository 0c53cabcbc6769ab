"""A multi-tenant fleet for scaling checks: three clusters (GitRepository, a Flux Kustomization, one
ImageUpdateAutomation per tenant with a policySelector), per app a base Deployment without a tag (plus a pinned
sidecar), an ImageRepository, and per cluster an overlay whose images: entry sets the tag under a :tag marker, with
the app's ImagePolicy. Usage: genscale.py OUT APPS TENANTS (a git repository; 1,000 apps give 9,303 files).

    for n in 1000 2000 4000 8000; do python3 scripts/bench-support/genscale.py /tmp/f$n $n $((n/10));
        (cd /tmp/f$n && /usr/bin/time -f "%e s %M KB" .../tagwarden audit --format json >/dev/null); done
"""
import os, sys, shutil, subprocess
out, apps, tenants = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
shutil.rmtree(out, ignore_errors=True)
def w(p, t):
    p = os.path.join(out, p); os.makedirs(os.path.dirname(p), exist_ok=True); open(p, "w").write(t)
clusters = [("development", "develop"), ("staging", "staging"), ("production", "production")]
for env, prefix in clusters:
    w(f"clusters/{env}/flux-system/gotk-sync.yaml", f"""apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: ssh://git@github.com/acme/fleet
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/{env}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
""")
    for t in range(tenants):
        w(f"clusters/{env}/automation/tenant{t}.yaml", f"""apiVersion: image.toolkit.fluxcd.io/v1
kind: ImageUpdateAutomation
metadata:
  name: tenant{t}
  namespace: flux-system
spec:
  interval: 30m
  sourceRef:
    kind: GitRepository
    name: flux-system
  git:
    checkout:
      ref:
        branch: main
    commit:
      author: {{name: fluxbot, email: flux@acme.io}}
      messageTemplate: '{{{{range .Changed.Changes}}}}{{{{print .OldValue}}}} -> {{{{println .NewValue}}}}{{{{end}}}}'
    push:
      branch: flux-updates-{env}
  update:
    path: ./apps/{env}/tenant{t}
    strategy: Setters
  policySelector:
    matchLabels:
      tenant: tenant{t}
""")
for i in range(apps):
    t = i % tenants
    app = f"app{i:05d}"
    w(f"apps/base/tenant{t}/{app}/deployment.yaml", f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
spec:
  template:
    spec:
      containers:
        - name: {app}
          image: ghcr.io/acme/{app}
        - name: proxy
          image: envoyproxy/envoy:v1.31.2@sha256:{i:064x}
""")
    w(f"apps/base/tenant{t}/{app}/kustomization.yaml", "resources:\n  - deployment.yaml\n")
    w(f"flux/repositories/{app}.yaml", f"""apiVersion: image.toolkit.fluxcd.io/v1
kind: ImageRepository
metadata:
  name: {app}
  namespace: flux-system
spec:
  image: ghcr.io/acme/{app}
  interval: 5m
""")
    for env, prefix in clusters:
        w(f"apps/{env}/tenant{t}/{app}/kustomization.yaml", f"""apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: tenant{t}-{env}
resources:
  - ../../../base/tenant{t}/{app}
images:
  - name: ghcr.io/acme/{app}
    newTag: {prefix}-v1.{i % 9}.{i % 5}-abcdef{i % 10}-{1700000000 + i} # {{"$imagepolicy": "flux-system:{app}-{env}:tag"}}
""")
        # (in the cluster's directory, which flux-system applies: the overlay's `namespace:` would move it out of
        # flux-system, where its repository and the markers look for it)
        w(f"clusters/{env}/policies/tenant{t}/{app}.yaml", f"""apiVersion: image.toolkit.fluxcd.io/v1
kind: ImagePolicy
metadata:
  name: {app}-{env}
  namespace: flux-system
  labels:
    tenant: tenant{t}
spec:
  imageRepositoryRef:
    name: {app}
  filterTags:
    pattern: '^{prefix}-v[0-9]+\\.[0-9]+\\.[0-9]+-[0-9a-f]+-(?P<ts>[0-9]+)$'
    extract: '$ts'
  policy:
    numerical:
      order: asc
""")
subprocess.run(["git", "init", "-q", "-b", "main", out], check=True)
subprocess.run(["git", "-C", out, "remote", "add", "origin", "git@github.com:acme/fleet.git"], check=True)
subprocess.run(["git", "-C", out, "add", "-A"], check=True)
subprocess.run(["git", "-C", out, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "fleet"], check=True)
