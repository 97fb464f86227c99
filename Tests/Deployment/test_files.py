"""What a deployer edits under config/ agrees with itself and with what the tests prove.

The schemas themselves are checked by scripts/test: kubernetes-validate on config/kubernetes and
check-jsonschema (the Compose specification) on config/compose.yaml. These tests check what no
schema can: that the copies and the names which must agree, do.
"""

import json
import os
import re

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def read(path):
    with open(os.path.join(ROOT, path)) as file:
        return file.read()


def manifests(path):
    return {(document["kind"], document["metadata"]["name"]): document
            for document in yaml.safe_load_all(read(path))}


def test_the_router_configmap_carries_the_shipped_router_verbatim():
    configmap = manifests("config/kubernetes/router.yaml")[("ConfigMap", "lifecycled-router")]
    assert configmap["data"]["lifecycled.conf"] == read("config/nginx/lifecycled.conf")
    assert "include conf.d/lifecycled.replicas;" in configmap["data"]["lifecycled.conf"]


def test_the_router_lists_each_replica_once_through_its_own_service_and_never_fails_over():
    replicas = manifests("config/kubernetes/lifecycled.yaml")
    statefulset = replicas[("StatefulSet", "lifecycled")]
    configmap = manifests("config/kubernetes/router.yaml")[("ConfigMap", "lifecycled-router")]
    lines = configmap["data"]["lifecycled.replicas"].splitlines()
    count = statefulset["spec"]["replicas"]
    assert lines == [f"server lifecycled-{n}:8080 max_fails=0;" for n in range(count)]
    for n in range(count):
        service = replicas[("Service", f"lifecycled-{n}")]
        assert service["spec"]["selector"] == {"statefulset.kubernetes.io/pod-name": f"lifecycled-{n}"}
        assert service["spec"]["ports"][0]["port"] == 8080
    assert not any(kind == "Service" and re.fullmatch(r"lifecycled-\d+", name) and
                   int(name.split("-")[1]) >= count for kind, name in replicas)


def test_every_pod_runs_as_a_user_on_a_read_only_root_with_probes_and_resources():
    pods = [manifests("config/kubernetes/lifecycled.yaml")[("StatefulSet", "lifecycled")],
            manifests("config/kubernetes/router.yaml")[("Deployment", "lifecycled-router")]]
    for workload in pods:
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        for container in pod["containers"]:
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
            assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
            assert {"requests", "limits"} <= set(container["resources"])
            assert container["readinessProbe"]["httpGet"]["path"] in ("/readyz", "/router/livez")
            assert container["livenessProbe"]["httpGet"]["path"] in ("/livez", "/router/livez")


def test_the_compose_health_check_is_the_images_and_the_harness_runs_the_tested_versions():
    compose = yaml.safe_load(read("config/compose.yaml"))
    dockerfile = read("Dockerfile")
    image_check = json.loads(re.search(r"HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])", dockerfile)[1])
    assert compose["services"]["lifecycled"]["healthcheck"]["test"] == ["CMD", *image_check]
    harness = compose["services"]["harness"]
    assert harness["depends_on"] == {"lifecycled": {"condition": "service_healthy"}}
    pins = set(re.findall(r"[\w-]+==[\d.]+", " ".join(harness["command"])))
    assert pins and pins <= set(re.findall(r"[\w-]+==[\d.]+", read("scripts/install-dependencies")))


def test_the_guides_testcontainers_snippet_uses_the_pinned_librarys_api():
    readme = read("Sources/lifecycled/lifecycled.docc/Containers.md")
    snippet = re.search(r"```python\n(from testcontainers.*?)```", readme, re.S)[1]
    code = compile(snippet, "Containers.md", "exec")
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.wait_strategies import HttpWaitStrategy

    for method in ("with_env", "with_exposed_ports", "waiting_for", "get_container_host_ip",
                   "get_exposed_port"):
        assert method in code.co_names and callable(getattr(DockerContainer, method))
    HttpWaitStrategy(8080, "/readyz").for_status_code(200)
