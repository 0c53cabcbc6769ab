"""Generates a repository of promotion history for the history-scan benchmarks, with `git fast-import`. Deterministic.

genhistory.py OUT 1000: 30 apps in three environments; every commit re-pins one staging Deployment to a new tag and
digest, so every commit is new evidence (the most the scan can have to read per commit).
genhistory.py OUT 50000 mixed: 300 apps in three environments, as a busy fleet's history is: a commit re-pins one
app in development (60% of commits), staging (25%) or production (15%), and every tenth edits a README instead."""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genfleet import deployment, kustomization, policy, repository, ENVS

def main(out, commits, mixed=False):
    if os.path.exists(os.path.join(out, ".git")):
        return
    apps = 300 if mixed else 30
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
        i = (n * 7) % apps
        app = f"app{i:04d}"
        if not mixed:
            env, prefix = ENVS[1]
        elif n % 10 == 0:
            commit(n, f"notes {n}")
            blob(f"docs/{app}.md", f"# {app}\n\nrevision {n}\n")
            continue
        else:
            env, prefix = ENVS[0] if n % 20 < 12 else ENVS[1] if n % 20 < 17 else ENVS[2]
        commit(n, f"{env} {app} {n}")
        # a new tag and digest for the app (i + 1000 n is distinct per commit)
        blob(f"apps/{env}/{app}/deployment.yaml", deployment(app, env, prefix, i + 1000 * n))
    subprocess.run(["git", "-C", out, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", out, "checkout", "-q", "-f", "main"], check=True)

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000, mixed=sys.argv[3:] == ["mixed"])
