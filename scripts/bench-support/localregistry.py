"""A local docker-registry for the registry benchmarks: started on a free loopback port with its storage under a
directory, filled through the distribution API, stopped by the caller."""
import hashlib, json, os, shutil, socket, subprocess, time, urllib.request


class LocalRegistry:
    def __init__(self, root):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root + "/storage")
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        with open(root + "/config.yml", "w") as f:
            f.write(f"version: 0.1\nlog: {{level: error}}\nstorage: {{filesystem: {{rootdirectory: {root}/storage}}}}\n"
                    f"http: {{addr: \"127.0.0.1:{port}\"}}\n")
        self.process = subprocess.Popen(["docker-registry", "serve", root + "/config.yml"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.host = f"127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://{self.host}/v2/")
                break
            except Exception:
                time.sleep(0.05)

    def request(self, method, url, data=None, ctype=None):
        r = urllib.request.Request(url, data=data, method=method)
        if ctype: r.add_header("Content-Type", ctype)
        return urllib.request.urlopen(r)

    def blob(self, repo, data):
        d = "sha256:" + hashlib.sha256(data).hexdigest()
        loc = self.request("POST", f"http://{self.host}/v2/{repo}/blobs/uploads/").headers["Location"]
        if loc.startswith("/"): loc = f"http://{self.host}{loc}"
        self.request("PUT", loc + ("&" if "?" in loc else "?") + "digest=" + d, data, "application/octet-stream")
        return {"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": d, "size": len(data)}

    def push(self, repo, tags, seed=""):
        """One small image under each of `tags`."""
        c = self.blob(repo, json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []},
                                        "seed": seed}).encode())
        c["mediaType"] = "application/vnd.oci.image.config.v1+json"
        body = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": c,
                           "layers": [self.blob(repo, b"l")]}).encode()
        for t in tags:
            self.request("PUT", f"http://{self.host}/v2/{repo}/manifests/{t}", body, "application/vnd.oci.image.manifest.v1+json")

    def stop(self):
        self.process.kill()
