"""The shipped router, config/nginx/lifecycled.conf, run by Debian's nginx on loopback.

It is filled in as a deployer fills it in: its listen address (a loopback port here) and its
replica list (conf.d/lifecycled.replicas, one `server 127.0.0.1:PORT max_fails=0;` per
replica), in a directory of its own. Tests/Deployment/test_router.py and Benchmarks/routerbench
both run it through this module, which needs nothing but the standard library.
"""

import os
import subprocess
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHIPPED = os.path.join(ROOT, "config", "nginx", "lifecycled.conf")
SHIPPED_LISTEN = "    listen 8080;\n"


class Router:
    """nginx with the shipped router in front of replicas on loopback, started at once."""

    def __init__(self, directory, port, replica_ports, worker_processes="1"):
        self.directory = directory
        self.port = port
        os.makedirs(os.path.join(directory, "conf.d"), exist_ok=True)
        shipped = open(SHIPPED).read()
        if shipped.count(SHIPPED_LISTEN) != 1:
            raise ValueError(f"{SHIPPED} no longer has exactly one {SHIPPED_LISTEN.strip()!r}")
        with open(os.path.join(directory, "conf.d", "lifecycled.conf"), "w") as router:
            router.write(shipped.replace(SHIPPED_LISTEN, f"    listen 127.0.0.1:{port};\n"))
        self.list_replicas(replica_ports)
        with open(os.path.join(directory, "nginx.conf"), "w") as main:
            main.write(f"worker_processes {worker_processes};\npid nginx.pid;\n"
                       "error_log error.log warn;\nevents { worker_connections 4096; }\n"
                       "http {\n    access_log off;\n    include conf.d/lifecycled.conf;\n}\n")
        self.process = subprocess.Popen(self.command("-g", "daemon off;"))

    def list_replicas(self, ports):
        """Writes the replica list, one `server` line per port, in this order."""
        with open(os.path.join(self.directory, "conf.d", "lifecycled.replicas"), "w") as replicas:
            replicas.writelines(f"server 127.0.0.1:{port} max_fails=0;\n" for port in ports)

    def command(self, *arguments):
        return ["nginx", "-p", self.directory, "-c", os.path.join(self.directory, "nginx.conf"),
                *arguments]

    def workers(self):
        """The process ids of nginx's workers."""
        with open(f"/proc/{self.process.pid}/task/{self.process.pid}/children") as children:
            return {int(pid) for pid in children.read().split()}

    def reload(self):
        """nginx -s reload, and waits until the old workers are gone."""
        before = self.workers()
        subprocess.run(self.command("-s", "reload"), check=True)
        deadline = time.monotonic() + 10
        while self.workers() & before:
            if time.monotonic() > deadline:
                raise TimeoutError("the old nginx workers did not exit")
            time.sleep(0.02)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
