"""The registry budget on the bench fleet (issue 22): a local docker-registry holding the fleet's 1,000 images (each
environment's tag now and a newer one), a copy of bench-out/fleet (made by scripts/bench) pointing at it, and
`tagwarden update --registry` timed cold and from the cache, and `audit --registry` cold, medians of 3. Usage:
scripts/bench-support/fleetregistrybench.py [WORKDIR]  (needs Debian's docker-registry and a release build)."""
import os, subprocess, sys, time, concurrent.futures, shutil
here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tagwarden-fleetregistrybench"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from localregistry import LocalRegistry
registry = LocalRegistry(root)
host = registry.host
def tag(prefix, i, ts): return f"{prefix}-v1.{i % 40}.{i % 7}-{i * 2654435761 % (1 << 28):07x}-{ts}"
def fill(i):
    registry.push(f"acme/app{i:04d}", [tag(p, i, ts) for p in ("develop", "staging", "production") for ts in (1700000000 + i, 1800000000 + i)], seed=str(i))
t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(8) as ex: list(ex.map(fill, range(1000)))
print("filled in", round(time.time() - t0, 1), "s", flush=True)
fleet = root + "/fleet"
shutil.copytree(os.path.join(here, "bench-out", "fleet"), fleet, symlinks=True)
for dp, _, fs in os.walk(fleet):
    if ".git" in dp: continue
    for f in fs:
        p = os.path.join(dp, f); t = open(p).read()
        if "ghcr.io/acme/" in t: open(p, "w").write(t.replace("ghcr.io/acme/", host + "/acme/"))
subprocess.run(["git", "-C", fleet, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qam", "local registry"])
tw = os.path.join(here, ".build", "release", "tagwarden")
env = dict(os.environ, XDG_CACHE_HOME=root + "/cache", DOCKER_CONFIG=root + "/none")
cold = []; warm = []
for _ in range(3):
    shutil.rmtree(root + "/cache", ignore_errors=True)
    t = time.time(); p = subprocess.run([tw, "update", "--registry", "-q"], cwd=fleet, capture_output=True, text=True, env=env); cold.append(time.time() - t)
    t = time.time(); p2 = subprocess.run([tw, "update", "--registry"], cwd=fleet, capture_output=True, text=True, env=env); warm.append(time.time() - t)
cold.sort(); warm.sort()
print("1,000 repositories: cold median", round(cold[1], 2), "s; from the cache", round(warm[1], 2), "s; rc", p.returncode)
print("\n".join(p2.stderr.strip().splitlines()[-5:]))
print("changed lines:", p.stdout.count("\n+ "), p.stdout.count("\n+"))
# audit --registry: every tag the manifests name looked up (HEAD), the policies' listings as update lists them
audits = []
for _ in range(3):
    shutil.rmtree(root + "/cache", ignore_errors=True)
    t = time.time(); a = subprocess.run([tw, "audit", "--registry", "--format", "json"], cwd=fleet, capture_output=True, text=True, env=env)
    audits.append(time.time() - t)
audits.sort()
print("audit --registry, cold: median", round(audits[1], 2), "s; rc", a.returncode)
print("\n".join(l for l in a.stderr.strip().splitlines() if "registries:" in l))
import json as _json
from collections import Counter
print("registry findings:", dict(Counter(f["rule"] for f in _json.loads(a.stdout)["findings"] if f["rule"] in ("image-tag-missing", "image-digest-mismatch", "marker-behind"))))
registry.stop()
