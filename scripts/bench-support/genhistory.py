"""Generates a repository with 1,000 commits of staging promotions for the history-scan benchmark.

30 apps in three environments; every commit re-pins one staging Deployment to a new digest (so each
commit changes one staging blob), built with `git fast-import`. Deterministic."""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genfleet import deployment, kustomization, policy, repository, ENVS

def main(out, commits, apps=30):
    if os.path.exists(os.path.join(out, ".git")):
        return
    os.makedirs(out, exist_ok=True)
    subprocess.run(["git", "-C", out, "init", "-q", "-b", "main"], check=True)
    stream = []
    def blob(path, text):
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    def commit(n, message):
        msg = message.encode()
        stream.append(f"commit refs/heads/main\ncommitter bench <bench@example.com> {1700000000 + n} +0000\ndata {len(msg)}\n".encode() + msg + b"\n")
    commit(0, "fleet")
    for i in range(apps):
        app = f"app{i:04d}"
        blob(f"flux/repositories/{app}.yaml", repository(app))
        for env, prefix in ENVS:
            blob(f"apps/{env}/{app}/deployment.yaml", deployment(app, env, prefix, i))
            blob(f"apps/{env}/{app}/kustomization.yaml", kustomization(app, env))
            blob(f"apps/{env}/{app}/policy.yaml", policy(app, env, prefix))
    for n in range(1, commits):
        commit(n, f"promote {n}")
        i = n % apps
        app = f"app{i:04d}"
        text = deployment(app, "staging", "staging", i + 1000 * n)
        # staging pins a digest too, so every commit is new evidence
        text = text.replace(f"image: ghcr.io/acme/{app}:", f"image: ghcr.io/acme/{app}:", 1)
        text = text.replace(" # {", f"@sha256:{n:064x} # {{", 1)
        blob(f"apps/staging/{app}/deployment.yaml", text)
    subprocess.run(["git", "-C", out, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", out, "checkout", "-q", "-f", "main"], check=True)

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
