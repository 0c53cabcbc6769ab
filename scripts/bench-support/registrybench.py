"""The registry budget (issue 22): a local docker-registry with 100 repositories of 500 tags each, a fleet of 100
ImageRepositories, policies and markers, and `tagwarden update --registry` timed cold (no cache) and from the cache,
medians of 5. Usage: scripts/bench-support/registrybench.py [WORKDIR]  (needs Debian's docker-registry and a release
build of tagwarden)."""
import os, subprocess, sys, time, concurrent.futures, shutil
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tagwarden-registrybench"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from localregistry import LocalRegistry
registry = LocalRegistry(root)
host = registry.host
def fill(i):
    registry.push(f"acme/app{i:03d}", [f"main-{t:04x}-{1700000000 + t}" for t in range(500)])
t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(8) as ex: list(ex.map(fill, range(100)))
print("filled in", round(time.time() - t0, 1), "s; host", host, flush=True)
# a fleet: 100 ImageRepositories, policies, one automation, markers
fleet = root + "/fleet"; os.makedirs(fleet + "/apps")
docs = []
for i in range(100):
    docs.append(f"apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {{name: app{i:03d}, namespace: flux-system}}\nspec: {{image: {host}/acme/app{i:03d}}}\n")
    docs.append(f"apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {{name: app{i:03d}, namespace: flux-system}}\nspec:\n  imageRepositoryRef: {{name: app{i:03d}}}\n  filterTags: {{pattern: '^main-[0-9a-f]+-(?P<ts>[0-9]+)$', extract: '$ts'}}\n  policy: {{numerical: {{order: asc}}}}\n")
    open(f"{fleet}/apps/app{i:03d}.yaml", "w").write(f"image: {host}/acme/app{i:03d}:main-0000-1700000000 # {{\"$imagepolicy\": \"flux-system:app{i:03d}\"}}\n")
docs.append("apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: apps, namespace: flux-system}\nspec: {update: {path: ./apps}, git: {checkout: {ref: {branch: main}}, push: {branch: main}}}\n")
open(fleet + "/flux.yaml", "w").write("---\n".join(docs))
subprocess.run(["git", "init", "-q", "-b", "main", fleet]); subprocess.run(["git", "-C", fleet, "add", "-A"]); subprocess.run(["git", "-C", fleet, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"])
tw = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build", "release", "tagwarden")
env = dict(os.environ, XDG_CACHE_HOME=root + "/cache", DOCKER_CONFIG=root + "/none")
def run(args):
    t = time.time(); p = subprocess.run([tw, "update", "--registry"] + args, cwd=fleet, capture_output=True, text=True, env=env); return time.time() - t, p
cold = []; warm = []
for _ in range(5):
    shutil.rmtree(root + "/cache", ignore_errors=True)
    t, p = run([]); cold.append(t)
    t2, p2 = run([]); warm.append(t2)
cold.sort(); warm.sort()
print("cold median", round(cold[2], 3), "s; warm median", round(warm[2], 3), "s")
print(p.stderr.strip().splitlines()[-3:]); print(p2.stderr.strip().splitlines()[-3:])
print("changes:", p.stdout.count("\n+image"))
registry.stop()
