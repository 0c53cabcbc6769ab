"""Generates the benchmark fleet: a git repository of Flux-managed apps in three environments.

Per app: one ImageRepository; per app and environment: a Deployment whose image carries a
$imagepolicy marker, a kustomization.yaml and an ImagePolicy. 1,000 apps give 10,000 files,
3,000 ImagePolicies and 3,000 markers (about 3.5 MB). Deterministic."""
import os, shutil, subprocess, sys

ENVS = [("development", "develop"), ("staging", "staging"), ("production", "production")]

def deployment(app, env, prefix, i):
    tag = f"{prefix}-v1.{i % 40}.{i % 7}-{i * 2654435761 % (1 << 28):07x}-{1700000000 + i}"
    digest = f"{i:064x}"[-64:]
    image = f"ghcr.io/acme/{app}:{tag}"
    if env in ("staging", "production"):
        image += f"@sha256:{digest}"   # production runs the digest staging tested
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
  namespace: {env}
  labels:
    app: {app}
    team: team-{i % 17}
spec:
  replicas: {1 + i % 3}
  selector:
    matchLabels:
      app: {app}
  template:
    metadata:
      labels:
        app: {app}
    spec:
      containers:
        - name: {app}
          image: {image} # {{"$imagepolicy": "flux-system:{app}-{env}"}}
          ports:
            - containerPort: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
"""

def kustomization(app, env):
    return f"""apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: {env}
resources:
  - deployment.yaml
  - policy.yaml
"""

def policy(app, env, prefix):
    # staging and production pin digests, so their policies reflect them (else Flux would drop the pins)
    reflect = "\n  digestReflectionPolicy: IfNotPresent" if env in ("staging", "production") else ""
    return f"""apiVersion: image.toolkit.fluxcd.io/v1
kind: ImagePolicy
metadata:
  name: {app}-{env}
  namespace: flux-system
spec:
  imageRepositoryRef:
    name: {app}{reflect}
  filterTags:
    pattern: '^{prefix}-v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)-[0-9a-f]+-(?P<ts>[0-9]+)$'
    extract: '$ts'
  policy:
    numerical:
      order: asc
"""

def repository(app):
    return f"""apiVersion: image.toolkit.fluxcd.io/v1
kind: ImageRepository
metadata:
  name: {app}
  namespace: flux-system
spec:
  image: ghcr.io/acme/{app}
  interval: 5m
"""

VERSION = "2"   # bump when the generated files change: an older fleet is generated again

def main(out, apps):
    stamp = os.path.join(out, ".git", "genfleet-version")
    if os.path.exists(stamp) and open(stamp).read() == VERSION:
        return
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    for i in range(apps):
        app = f"app{i:04d}"
        d = os.path.join(out, "flux", "repositories")
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, f"{app}.yaml"), "w").write(repository(app))
        for env, prefix in ENVS:
            d = os.path.join(out, "apps", env, app)
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "deployment.yaml"), "w").write(deployment(app, env, prefix, i))
            open(os.path.join(d, "kustomization.yaml"), "w").write(kustomization(app, env))
            open(os.path.join(d, "policy.yaml"), "w").write(policy(app, env, prefix))
    git = ["git", "-C", out, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(git[:3] + ["init", "-q", "-b", "main"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["-c", "gc.auto=0", "commit", "-q", "-m", "fleet"], check=True)
    subprocess.run(git[:3] + ["gc", "-q"], check=False)  # packed, as real clones are
    open(stamp, "w").write(VERSION)

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
