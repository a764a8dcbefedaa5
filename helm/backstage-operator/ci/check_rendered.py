#!/usr/bin/env python3
"""Structured checks of `helm template` output for the backstage-operator chart (run by bin/helm-check).

Usage: check_rendered.py <scenario> <rendered.yaml> <chart dir> <release> <namespace>
The scenario is `default` or the name of a ci/<scenario>-values.yaml file; what the rendered manifests
must contain is derived from values.yaml merged with that file, so a new ci values file is checked too.

The expected operator permissions are written out here on purpose, separately from the chart's helper:
a rule added to or dropped from the chart fails this check until both agree.
"""
import base64
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

# What the operator may do in a watched namespace: (apiGroup, resource, verb).
def _grant(group, resources, verbs):
    return {(group, r, v) for r in resources for v in verbs}

OPERATOR_PERMISSIONS = (
    _grant("backstage.dev", ["backstagetopologies", "backstageworkerpools"], ["get", "list", "watch", "patch", "update"])
    | _grant("backstage.dev", ["backstagetopologies/status", "backstageworkerpools/status"], ["get", "patch", "update"])
    | _grant("backstage.dev", ["backstagetopologies/finalizers", "backstageworkerpools/finalizers"], ["update", "patch"])
    | _grant("apps", ["deployments"], ["get", "list", "watch", "create", "update", "patch", "delete"])
    | _grant("", ["configmaps"], ["get", "list", "watch", "create", "update", "patch", "delete"])
    | _grant("", ["pods"], ["get", "list"])
    | _grant("", ["secrets"], ["get"])
    | _grant("", ["events"], ["get", "create", "patch"])
)
# fabric8's LeaderElector renews with PATCH (found on the real API server: without it the leader lost its Lease).
LEASE_PERMISSIONS = _grant("coordination.k8s.io", ["leases"], ["get", "create", "update", "patch"])
WEBHOOK_PATHS = {"backstagetopologies": "/validate/backstagetopology",
                 "backstageworkerpools": "/validate/backstageworkerpool"}
TLS_DIR = "/etc/backstage/webhook-tls"


class Checks:
    def __init__(self, scenario):
        self.scenario = scenario
        self.failed = 0

    def expect(self, condition, what, detail=""):
        if condition:
            print(f"  ok    [{self.scenario}] {what}")
        else:
            self.failed += 1
            print(f"  FAIL  [{self.scenario}] {what}" + (f": {detail}" if detail else ""))
        return condition


def deep_merge(base, override):
    merged = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def fullname(values, release, chart_name):
    if values.get("fullnameOverride"):
        return values["fullnameOverride"][:63].rstrip("-")
    name = values.get("nameOverride") or chart_name
    return (release if name in release else f"{release}-{name}")[:63].rstrip("-")


def permissions(rules):
    return {(g, r, v) for rule in rules for g in rule.get("apiGroups", [])
            for r in rule.get("resources", []) for v in rule.get("verbs", [])}


def main():
    scenario, rendered_path, chart, release, namespace = sys.argv[1:6]
    c = Checks(scenario)
    with open(os.path.join(chart, "values.yaml")) as f:
        values = yaml.safe_load(f)
    if scenario != "default":
        with open(os.path.join(chart, "ci", f"{scenario}-values.yaml")) as f:
            values = deep_merge(values, yaml.safe_load(f))
    with open(os.path.join(chart, "Chart.yaml")) as f:
        chart_meta = yaml.safe_load(f)
    with open(rendered_path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]

    name = fullname(values, release, chart_meta["name"])
    if not values.get("watchAllNamespaces") and not values["watchNamespaces"]:
        values["watchNamespaces"] = [namespace]  # the default: the release namespace alone
    watch = values["watchNamespaces"]
    webhook = values["webhook"]
    cert_manager = webhook["enabled"] and webhook["certManager"]["enabled"]
    existing_tls = webhook["enabled"] and not cert_manager and bool(webhook["selfSigned"].get("existingSecret"))
    operator_tls = webhook["enabled"] and not cert_manager and not existing_tls
    sa_name = values["serviceAccount"]["name"] or name

    def of_kind(kind):
        return [d for d in docs if d.get("kind") == kind]

    # --- every object ---------------------------------------------------------------------------
    unlabelled = [f"{d['kind']}/{d['metadata']['name']}" for d in docs
                  if not {"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by"}
                  <= set((d["metadata"].get("labels") or {}).keys())]
    c.expect(not unlabelled, "every object has the standard app.kubernetes.io labels", str(unlabelled))
    cluster_scoped = {"ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "CustomResourceDefinition"}
    # Roles go to the watched namespaces, the dashboard ConfigMap to Grafana's (both checked where they are made).
    elsewhere = lambda d: d["kind"] in ("Role", "RoleBinding") or (
        d["kind"] == "ConfigMap" and d["metadata"]["name"] == f"{name}-dashboards")
    misplaced = [f"{d['kind']}/{d['metadata']['name']} in {d['metadata'].get('namespace')}" for d in docs
                 if d["kind"] not in cluster_scoped and not elsewhere(d) and d["metadata"].get("namespace") != namespace]
    c.expect(not misplaced, f"namespaced objects are in the release namespace {namespace}", str(misplaced))

    # --- RBAC -----------------------------------------------------------------------------------
    roles = of_kind("Role") + of_kind("ClusterRole")
    wildcards = [f"{r['kind']}/{r['metadata']['name']}" for r in roles for rule in r.get("rules", [])
                 if any("*" in x for key in ("verbs", "resources", "apiGroups", "resourceNames") for x in rule.get(key, []))
                 or "nonResourceURLs" in rule]
    c.expect(not wildcards, "no '*' and no nonResourceURLs in any rule", str(wildcards))
    # The webhook-certificate Role (operator TLS) writes the operator's own Secret: checked in check_operator_tls.
    secret_verbs = {v for r in roles if r["metadata"]["name"] != f"{name}-webhook-certificate"
                    for (g, res, v) in permissions(r.get("rules", [])) if g == "" and res == "secrets"}
    c.expect(secret_verbs <= {"get"}, "Secrets: get only (the operator reads a topology's Secret by name)", str(secret_verbs))

    operator_cluster_roles = [r for r in of_kind("ClusterRole") if r["metadata"]["name"] == name]
    operator_roles = [r for r in of_kind("Role") if r["metadata"]["name"] == name]
    if not values["rbac"]["create"]:
        c.expect(not roles, "rbac.create=false renders no roles")
    elif not watch:
        c.expect(len(operator_cluster_roles) == 1 and not operator_roles,
                 "all namespaces: one operator ClusterRole, no operator Roles")
        for r in operator_cluster_roles:
            got = permissions(r["rules"])
            c.expect(got == OPERATOR_PERMISSIONS, "ClusterRole grants exactly the operator's permissions",
                     f"extra {sorted(got - OPERATOR_PERMISSIONS)}, missing {sorted(OPERATOR_PERMISSIONS - got)}")
    else:
        c.expect(not operator_cluster_roles, "namespace list: no operator ClusterRole")
        c.expect(sorted(r["metadata"]["namespace"] for r in operator_roles) == sorted(watch),
                 f"one operator Role in each watched namespace {watch}",
                 str([r["metadata"].get("namespace") for r in operator_roles]))
        for r in operator_roles:
            got = permissions(r["rules"])
            c.expect(got == OPERATOR_PERMISSIONS, f"Role in {r['metadata']['namespace']} grants exactly the operator's permissions",
                     f"extra {sorted(got - OPERATOR_PERMISSIONS)}, missing {sorted(OPERATOR_PERMISSIONS - got)}")
    if values["rbac"]["create"]:
        lease_roles = [r for r in of_kind("Role") if r["metadata"]["name"] == f"{name}-leader-election"]
        c.expect(len(lease_roles) == 1 and lease_roles[0]["metadata"]["namespace"] == namespace,
                 "a leader-election Role in the release namespace")
        for r in lease_roles:
            c.expect(permissions(r["rules"]) == LEASE_PERMISSIONS, "it grants get/create/update/patch on leases only")
            c.expect(any({"get", "create", "update"} <= set(rule["verbs"]) and "leases" in rule["resources"]
                         and not rule.get("resourceNames") for rule in r["rules"]),
                     "one lease rule holds get+create+update (JOSDK checks for such a rule)")
        rendered_roles = {(r["kind"], r["metadata"].get("namespace"), r["metadata"]["name"]) for r in roles}
        for b in of_kind("RoleBinding") + of_kind("ClusterRoleBinding"):
            ref = b["roleRef"]
            ref_ns = b["metadata"].get("namespace") if ref["kind"] == "Role" else None
            c.expect((ref["kind"], ref_ns, ref["name"]) in rendered_roles,
                     f"{b['kind']} {b['metadata'].get('namespace', '')}/{b['metadata']['name']} binds a rendered role")
            c.expect(b["subjects"] == [{"kind": "ServiceAccount", "name": sa_name, "namespace": namespace}],
                     f"{b['kind']} {b['metadata']['name']} binds the operator's ServiceAccount only", str(b["subjects"]))
    aggregated = [r for r in of_kind("ClusterRole") if r["metadata"]["name"] in (f"{name}-edit", f"{name}-view")]
    c.expect(len(aggregated) == (2 if values["rbac"]["create"] and values["rbac"]["aggregateToDefaultRoles"] else 0),
             "aggregated edit/view ClusterRoles follow rbac.aggregateToDefaultRoles")

    sas = of_kind("ServiceAccount")
    c.expect(len(sas) == (1 if values["serviceAccount"]["create"] else 0), "ServiceAccount follows serviceAccount.create")

    # --- Deployment -----------------------------------------------------------------------------
    deployments = of_kind("Deployment")
    if not c.expect(len(deployments) == 1, "one operator Deployment"):
        return finish(c)
    deployment = deployments[0]
    pod = deployment["spec"]["template"]["spec"]
    c.expect(deployment["spec"]["replicas"] == values["replicas"], f"replicas = {values['replicas']}")
    c.expect(pod["serviceAccountName"] == sa_name, f"serviceAccountName = {sa_name}")
    selector = deployment["spec"]["selector"]["matchLabels"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    c.expect(selector.items() <= pod_labels.items(), "the selector matches the pod labels")
    psc = pod.get("securityContext", {})
    c.expect(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 65532,
             "pod runs as non-root uid 65532", str(psc))
    c.expect(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "pod seccomp RuntimeDefault")
    (container,) = pod["containers"]
    sc = container.get("securityContext", {})
    c.expect(sc.get("allowPrivilegeEscalation") is False and sc.get("readOnlyRootFilesystem") is True
             and sc.get("capabilities", {}).get("drop") == ["ALL"] and sc.get("runAsNonRoot") is True,
             "container: no privilege escalation, read-only root, all capabilities dropped", str(sc))
    res = container.get("resources", {})
    c.expect({"cpu", "memory"} <= set(res.get("requests", {})) and "memory" in res.get("limits", {}),
             "resources: cpu+memory requests, a memory limit", str(res))
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    console = values.get("console", {})
    want_ports = {"http": 8081, **({"webhook": 8443} if webhook["enabled"] else {}),
                  **({"console": console.get("port", 8082)} if console.get("enabled") else {})}
    c.expect(ports == want_ports, f"ports {want_ports}", str(ports))
    probes = {k: container.get(k, {}).get("httpGet", {}) for k in ("livenessProbe", "readinessProbe", "startupProbe")}
    c.expect(probes["livenessProbe"] == {"path": "/healthz", "port": "http"}
             and probes["readinessProbe"] == {"path": "/readyz", "port": "http"},
             "liveness /healthz and readiness /readyz on port http", str(probes))
    env = {e["name"]: e for e in container["env"]}
    field = lambda n: env.get(n, {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    c.expect(env.get("WATCH_NAMESPACES", {}).get("value") == ",".join(watch),
             f"WATCH_NAMESPACES = '{','.join(watch)}'", str(env.get("WATCH_NAMESPACES")))
    lease = values["leaderElection"]["leaseName"] or f"{name}-leader"
    c.expect(env.get("BACKSTAGE_LEASE_NAME", {}).get("value") == lease, f"BACKSTAGE_LEASE_NAME = {lease}")
    c.expect(field("BACKSTAGE_LEASE_NAMESPACE") == "metadata.namespace" and field("POD_NAME") == "metadata.name",
             "BACKSTAGE_LEASE_NAMESPACE and POD_NAME from the pod (fieldRef)")
    timing = {v: env.get(v, {}).get("value") for v in
              ("BACKSTAGE_LEASE_DURATION", "BACKSTAGE_LEASE_RENEW_DEADLINE", "BACKSTAGE_LEASE_RETRY_PERIOD")}
    election = values["leaderElection"]
    c.expect(list(timing.values()) == [election["leaseDuration"], election["renewDeadline"], election["retryPeriod"]],
             "BACKSTAGE_LEASE_DURATION / _RENEW_DEADLINE / _RETRY_PERIOD = leaderElection.*", str(timing))
    c.expect("MaxRAMPercentage" in env.get("JAVA_TOOL_OPTIONS", {}).get("value", ""),
             "JAVA_TOOL_OPTIONS bounds the heap by MaxRAMPercentage")
    java_options = env.get("JAVA_TOOL_OPTIONS", {}).get("value", "")
    c.expect(java_options == values["javaToolOptions"], "JAVA_TOOL_OPTIONS is javaToolOptions as given",
             java_options)
    arenas = values.get("mallocArenaMax")
    c.expect(env.get("MALLOC_ARENA_MAX", {}).get("value") == (None if arenas is None else str(arenas)),
             f"MALLOC_ARENA_MAX = {arenas} (absent when null)", str(env.get("MALLOC_ARENA_MAX")))
    c.expect("simpleLogger" not in json.dumps(docs, default=str), "no slf4j-simple system property anywhere (logback reads env)")
    # The operator's log and the workers' (passed on by the operator): BACKSTAGE_LOG_* and BACKSTAGE_WORKER_LOG_*,
    # LEVELS as logger=level joined by ',' in logger order, left out when empty. Written out here, not read from
    # the template, so a renamed variable fails until the Java side (LogSettings) and the chart agree.
    def levels(loggers):
        return ",".join(f"{logger}={level}" for logger, level in sorted(loggers.items())) or None
    for prefix, section in (("BACKSTAGE_LOG_", values), ("BACKSTAGE_WORKER_LOG_", values["workers"])):
        want = {"LEVEL": section["logLevel"], "LEVELS": levels(section.get("logLevels") or {}),
                "FORMAT": section["logFormat"]}
        got = {k: env.get(prefix + k, {}).get("value") for k in want}
        c.expect(got == want, f"{prefix}{{LEVEL,LEVELS,FORMAT}} = {want}", str(got))
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for v in values["extraVolumes"]:
        c.expect(volumes.get(v["name"]) == v, f"extra volume {v['name']} in the pod", str(volumes.get(v["name"])))
    for m in values["extraVolumeMounts"]:
        c.expect(mounts.get(m["mountPath"]) == m, f"extra mount {m['mountPath']} in the container")
    c.expect(len(volumes) == len(pod.get("volumes", [])), "volume names are unique")
    c.expect("/tmp" in mounts and "emptyDir" in volumes.get(mounts["/tmp"]["name"], {}) if "/tmp" in mounts else False,
             "/tmp is an emptyDir (read-only root filesystem)")
    if operator_tls:
        c.expect("WEBHOOK_TLS_DIR" not in env and TLS_DIR not in mounts,
                 "operator TLS: no TLS files mounted (the operator reads its Secret through the API)")
        tls_secret = {}
    elif webhook["enabled"]:
        c.expect(env.get("WEBHOOK_TLS_DIR", {}).get("value") == TLS_DIR, f"WEBHOOK_TLS_DIR = {TLS_DIR}")
        tls_mount = mounts.get(TLS_DIR)
        tls_secret = volumes.get(tls_mount["name"], {}).get("secret", {}) if tls_mount else {}
        c.expect(tls_mount is not None and tls_mount.get("readOnly") is True
                 and {i["path"] for i in tls_secret.get("items", [])} >= {"tls.crt", "tls.key"},
                 f"tls.crt and tls.key mounted read-only from a Secret at {TLS_DIR}")
    else:
        c.expect("WEBHOOK_TLS_DIR" not in env and TLS_DIR not in mounts, "webhook off: no TLS env or mount")
        tls_secret = {}

    # --- webhook --------------------------------------------------------------------------------
    configs = of_kind("ValidatingWebhookConfiguration")
    services = {s["metadata"]["name"]: s for s in of_kind("Service")}
    webhook_service = f"{name}-webhook"
    if not webhook["enabled"]:
        c.expect(not configs and webhook_service not in services and not of_kind("Certificate"),
                 "webhook off: no webhook configuration, Service or Certificate")
    else:
        svc = services.get(webhook_service)
        c.expect(svc is not None and svc["spec"]["ports"] == [{"name": "webhook", "port": 443, "targetPort": "webhook", "protocol": "TCP"}]
                 and svc["spec"]["selector"].items() <= pod_labels.items(),
                 "webhook Service: 443 -> the pod's webhook port")
        if c.expect(len(configs) == 1, "one ValidatingWebhookConfiguration"):
            config = configs[0]
            hooks = config["webhooks"]
            paths = {}
            for hook in hooks:
                (rule,) = hook["rules"]
                (plural,) = rule["resources"]
                paths[plural] = hook["clientConfig"]["service"]["path"]
                # Topologies also on DELETE: allowed, with a warning naming the pools that still use the topology.
                operations = ["CREATE", "DELETE", "UPDATE"] if plural == "backstagetopologies" else ["CREATE", "UPDATE"]
                c.expect(rule["apiGroups"] == ["backstage.dev"] and sorted(rule["operations"]) == operations
                         and rule["apiVersions"] == webhook["apiVersions"],
                         f"{plural}: backstage.dev {webhook['apiVersions']} {' and '.join(operations)}", str(rule))
                c.expect(hook["failurePolicy"] == webhook["failurePolicy"] and hook["sideEffects"] == "None"
                         and "v1" in hook["admissionReviewVersions"],
                         f"{plural}: failurePolicy {webhook['failurePolicy']}, no side effects, AdmissionReview v1")
                c.expect(hook["clientConfig"]["service"]["name"] == webhook_service
                         and hook["clientConfig"]["service"]["namespace"] == namespace,
                         f"{plural}: calls {namespace}/{webhook_service}")
                # helm template renders for a recent Kubernetes: UPDATEs that keep the spec skip the webhook.
                conditions = [m.get("expression", "") for m in hook.get("matchConditions", [])]
                c.expect(len(conditions) == 1 and "object.spec != oldObject.spec" in conditions[0]
                         and "request.operation != 'UPDATE'" in conditions[0],
                         f"{plural}: an UPDATE that keeps the spec does not call the webhook (matchConditions)",
                         str(conditions))
                if watch and not webhook["namespaceSelector"]:
                    exprs = hook.get("namespaceSelector", {}).get("matchExpressions", [])
                    c.expect(exprs == [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": watch}],
                             f"{plural}: only the watched namespaces {watch}", str(exprs))
            c.expect(paths == WEBHOOK_PATHS, "webhook paths /validate/backstagetopology and /validate/backstageworkerpool",
                     str(paths))
            annotations = config["metadata"].get("annotations") or {}
            if cert_manager:
                check_cert_manager(c, docs, values, name, namespace, annotations, hooks, tls_secret)
            if operator_tls:
                check_operator_tls(c, docs, name, namespace, hooks, env)
            if existing_tls:
                check_existing_tls(c, docs, webhook, hooks, tls_secret, deployment)

    # --- CRDs -----------------------------------------------------------------------------------
    crd_docs = of_kind("CustomResourceDefinition")
    crd_dir = os.path.join(chart, "crds")
    crd_files = sorted(f for f in os.listdir(crd_dir) if f.endswith((".yml", ".yaml")))
    if not values["crds"]["templated"]:
        c.expect(not crd_docs, "crds.templated=false: no CRD among the templates (they come from crds/ only)")
    else:
        c.expect(len(crd_docs) == len(crd_files), f"crds.templated=true: {len(crd_files)} CRDs rendered, one per crds/ file",
                 f"{len(crd_docs)} rendered")
        rendered = {d["metadata"]["name"]: d for d in crd_docs}
        for file in crd_files:
            with open(os.path.join(crd_dir, file)) as f:
                source = yaml.safe_load(f)
            got = copy.deepcopy(rendered.get(source["metadata"]["name"]))
            if not c.expect(got is not None, f"{file} is rendered"):
                continue
            keep = (got["metadata"].get("annotations") or {}).get("helm.sh/resource-policy")
            c.expect(keep == ("keep" if values["crds"]["keep"] else None), f"{file}: resource-policy keep follows crds.keep")
            # The template only adds chart labels and the keep annotation; everything else is the file.
            for key in ("labels", "annotations"):
                added = got["metadata"].get(key) or {}
                original = source["metadata"].get(key) or {}
                got["metadata"][key] = {k: v for k, v in added.items() if k in original}
                if not got["metadata"][key]:
                    del got["metadata"][key]
            c.expect(got == source, f"{file}: rendered CRD equals the file apart from labels/annotations")

    check_monitoring(c, docs, values, name, namespace, services, pod_labels)
    check_dashboards(c, docs, values, name, namespace, chart)
    check_network_policy(c, docs, values, name, pod_labels, ports)

    pdbs = of_kind("PodDisruptionBudget")
    want_pdb = values["podDisruptionBudget"]["enabled"] and int(values["replicas"]) > 1
    c.expect(len(pdbs) == (1 if want_pdb else 0), "PodDisruptionBudget follows its switch (from 2 replicas on)")
    c.expect((f"{name}-metrics" in services) == values["metrics"]["service"]["enabled"], "metrics Service follows its switch")
    return finish(c)


def check_cert_manager(c, docs, values, name, namespace, annotations, hooks, tls_secret):
    certs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Certificate"}
    issuers = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Issuer"}
    cert = certs.get(f"{name}-webhook")
    if not c.expect(cert is not None, "cert-manager: a serving Certificate"):
        return
    c.expect(annotations.get("cert-manager.io/inject-ca-from") == f"{namespace}/{cert['metadata']['name']}",
             "cert-manager: the webhook configuration injects the CA from that Certificate", str(annotations))
    c.expect(all("caBundle" not in h["clientConfig"] for h in hooks), "cert-manager: no static caBundle")
    c.expect(cert["spec"]["secretName"] == tls_secret.get("secretName"), "cert-manager: the pod mounts the Certificate's Secret")
    c.expect(f"{name}-webhook.{namespace}.svc" in cert["spec"]["dnsNames"], "cert-manager: the certificate names the Service")
    c.expect(cert["spec"]["privateKey"].get("encoding") == "PKCS1", "cert-manager: key in PKCS#1, as the self-signed pair")
    c.expect(not cert["spec"].get("isCA"), "cert-manager: the serving certificate is not a CA")
    if not values["webhook"]["certManager"]["issuerRef"]:
        # bootstrap self-signed Issuer -> CA Certificate -> CA Issuer -> serving Certificate: a renewal of the
        # serving certificate keeps the CA, so the injected caBundle (the CA) does not change.
        ca_cert = certs.get(f"{name}-webhook-ca")
        c.expect(len(certs) == 2 and len(issuers) == 2, "cert-manager: two Certificates (CA, serving) and two Issuers",
                 f"{sorted(certs)} {sorted(issuers)}")
        if not c.expect(ca_cert is not None and ca_cert["spec"].get("isCA") is True, "cert-manager: a CA Certificate (isCA)"):
            return
        bootstrap = issuers.get(ca_cert["spec"]["issuerRef"]["name"])
        c.expect(bootstrap is not None and bootstrap["spec"] == {"selfSigned": {}},
                 "cert-manager: a self-signed Issuer issues only the CA")
        c.expect(ca_cert["spec"]["privateKey"].get("rotationPolicy") == "Never",
                 "cert-manager: the CA keeps its key on renewal")
        ca_issuer = issuers.get(cert["spec"]["issuerRef"]["name"])
        c.expect(cert["spec"]["issuerRef"]["kind"] == "Issuer" and ca_issuer is not None
                 and ca_issuer["spec"] == {"ca": {"secretName": ca_cert["spec"]["secretName"]}},
                 "cert-manager: the serving Certificate is signed by a CA Issuer on the CA's Secret",
                 str(cert["spec"]["issuerRef"]))
        c.expect(ca_cert["spec"]["secretName"] != cert["spec"]["secretName"], "cert-manager: CA and serving pair in separate Secrets")
    else:
        ref = values["webhook"]["certManager"]["issuerRef"]
        c.expect(len(certs) == 1 and not issuers and cert["spec"]["issuerRef"]["name"] == ref["name"],
                 f"cert-manager: issued by the given issuer {ref['name']}, no chart issuers")
    c.expect(not [d for d in docs if d["kind"] == "Secret"], "cert-manager: the chart renders no TLS Secret itself")


def check_existing_tls(c, docs, webhook, hooks, tls_secret, deployment):
    wanted = webhook["selfSigned"]["existingSecret"]
    c.expect(tls_secret.get("secretName") == wanted, f"existing TLS: the pod mounts the provided Secret {wanted}",
             str(tls_secret))
    c.expect(not [d for d in docs if d["kind"] in ("Secret", "Certificate", "Issuer")],
             "existing TLS: the chart generates no Secret, Certificate or Issuer")
    bundles = {h["clientConfig"].get("caBundle") for h in hooks}
    c.expect(bundles == {webhook["selfSigned"]["caBundle"]}, "existing TLS: both webhooks trust the given caBundle")
    annotations = deployment["spec"]["template"]["metadata"].get("annotations") or {}
    c.expect("checksum/webhook-tls" not in annotations,
             "existing TLS: no checksum annotation (nothing random, the pods do not roll on a re-render)")


def check_monitoring(c, docs, values, name, namespace, services, pod_labels):
    metrics = values["metrics"]
    by_kind = lambda kind: {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}
    service_monitors, pod_monitors, rules = by_kind("ServiceMonitor"), by_kind("PodMonitor"), by_kind("PrometheusRule")
    job_relabel = {"targetLabel": "job", "replacement": name}

    want = metrics["serviceMonitor"]["enabled"]
    c.expect(len(service_monitors) == (1 if want else 0), "ServiceMonitor follows metrics.serviceMonitor.enabled")
    for sm in service_monitors.values():
        svc = services.get(f"{name}-metrics")
        c.expect(svc is not None and sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
                 and sm["spec"]["namespaceSelector"] == {"matchNames": [namespace]},
                 "ServiceMonitor selects the metrics Service in the release namespace")
        (ep,) = sm["spec"]["endpoints"]
        c.expect(ep["port"] == "http" and ep["path"] == "/metrics" and ep["relabelings"][0] == job_relabel
                 and ep["relabelings"][1:] == metrics["serviceMonitor"]["relabelings"],
                 f"ServiceMonitor scrapes port http /metrics as job {name} (plus the given relabelings)", str(ep))
        c.expect(metrics["serviceMonitor"]["labels"].items() <= sm["metadata"]["labels"].items(), "ServiceMonitor carries the given labels")

    operator_pm = pod_monitors.get(name)
    c.expect((operator_pm is not None) == metrics["podMonitor"]["enabled"], "operator PodMonitor follows metrics.podMonitor.enabled")
    if operator_pm:
        (ep,) = operator_pm["spec"]["podMetricsEndpoints"]
        c.expect(operator_pm["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
                 and ep["port"] == "http" and ep["relabelings"][0] == job_relabel
                 and ep["interval"] == metrics["podMonitor"]["interval"],
                 f"operator PodMonitor selects the operator pods, port http, job {name}", str(ep))
        c.expect(metrics["podMonitor"]["labels"].items() <= operator_pm["metadata"]["labels"].items(), "operator PodMonitor carries the given labels")

    workers_pm = pod_monitors.get(f"{name}-workers")
    c.expect((workers_pm is not None) == metrics["workers"]["podMonitor"]["enabled"],
             "workers PodMonitor follows metrics.workers.podMonitor.enabled")
    if workers_pm:
        spec = workers_pm["spec"]
        (ep,) = spec["podMetricsEndpoints"]
        want_ns = {"matchNames": values["watchNamespaces"]} if values["watchNamespaces"] else {"any": True}
        c.expect(spec["selector"] == {"matchExpressions": [{"key": "backstage.dev/pool", "operator": "Exists"}]}
                 and spec["namespaceSelector"] == want_ns,
                 f"workers PodMonitor selects pods labelled backstage.dev/pool in {want_ns}", str(spec["namespaceSelector"]))
        c.expect(ep["port"] == "http" and ep["path"] == "/metrics" and {"sourceLabels": ["__meta_kubernetes_pod_label_backstage_dev_pool"],
                 "targetLabel": "pool"} in ep["relabelings"], "workers PodMonitor: port http /metrics, a pool label")

    rule_values = metrics["prometheusRule"]
    c.expect(len(rules) == (1 if rule_values["enabled"] else 0), "PrometheusRule follows metrics.prometheusRule.enabled")
    if not rules:
        return
    (rule,) = rules.values()
    alerts = {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r}
    expected = {"operatorDown": "BackstageOperatorDown", "reconcileErrors": "BackstageReconcileErrors",
                "deadLetters": "BackstageDeadLettersGrowing", "backlogUnavailable": "BackstageBacklogUnavailable"}
    want_alerts = {a for key, a in expected.items() if rule_values[key]["enabled"]}
    want_alerts |= {r["alert"] for r in rule_values["additionalRules"] if "alert" in r}
    c.expect(set(alerts) == want_alerts, f"PrometheusRule alerts {sorted(want_alerts)}", str(sorted(alerts)))
    for key, alert_name in expected.items():
        alert = alerts.get(alert_name)
        if not alert:
            continue
        v = rule_values[key]
        c.expect(alert["for"] == v["for"] and alert["labels"]["severity"] == v["severity"]
                 and alert["annotations"].get("summary") and alert["annotations"].get("description"),
                 f"{alert_name}: for {v['for']}, severity {v['severity']}, summary and description")
        if key in ("operatorDown", "reconcileErrors"):
            c.expect(f'job="{name}", namespace="{namespace}"' in alert["expr"],
                     f"{alert_name} selects the operator's scrape job {name}", alert["expr"])
        if key in ("reconcileErrors", "deadLetters"):
            c.expect(f"[{v['window']}]" in alert["expr"], f"{alert_name} counts over {v['window']}", alert["expr"])
        if key == "deadLetters":
            c.expect("increase(backstage_dead_letters_total" in alert["expr"] and alert["expr"].endswith(f"> {v['threshold']}")
                     and "by (namespace, pool)" in alert["expr"], f"{alert_name}: per pool, above {v['threshold']}", alert["expr"])
        if key in ("deadLetters", "backlogUnavailable") and values["watchNamespaces"]:
            c.expect(f'namespace=~"{"|".join(values["watchNamespaces"])}"' in alert["expr"],
                     f"{alert_name} is limited to the watched namespaces", alert["expr"])
    c.expect(rule_values["labels"].items() <= rule["metadata"]["labels"].items(), "PrometheusRule carries the given labels")


GRAFANA_BUILTINS = {"__rate_interval", "__interval", "__range", "__interval_ms", "__range_s", "__all"}


def dashboard_problems(dashboard):
    """What is wrong with a Grafana dashboard's structure and queries (an empty list when nothing is)."""
    problems = []
    for key in ("title", "uid", "schemaVersion", "panels", "templating"):
        if not dashboard.get(key):
            problems.append(f"no {key}")
    if len(dashboard.get("uid", "")) > 40:
        problems.append("uid longer than 40 characters")
    variables = {v.get("name"): v for v in (dashboard.get("templating") or {}).get("list", [])}
    datasource = variables.get("datasource")
    if not datasource or datasource.get("type") != "datasource" or datasource.get("query") != "prometheus":
        problems.append("no Prometheus datasource variable named datasource")
    ids = [p.get("id") for p in dashboard.get("panels", [])]
    if len(ids) != len(set(ids)) or None in ids:
        problems.append(f"panel ids missing or repeated: {ids}")
    queries = []
    for v in variables.values():
        if v.get("type") == "query":
            queries.append((f"variable {v['name']}", v.get("definition", "")))
    for panel in dashboard.get("panels", []):
        where = f"panel {panel.get('id')} {panel.get('title')!r}"
        grid = panel.get("gridPos") or {}
        if not all(k in grid for k in ("h", "w", "x", "y")) or grid.get("x", 0) + grid.get("w", 0) > 24:
            problems.append(f"{where}: gridPos {grid} is not within the 24 columns")
        if panel.get("type") == "row":
            continue
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{where}: no queries")
        for t in targets:
            if (t.get("datasource") or {}).get("uid") != "${datasource}":
                problems.append(f"{where}: query {t.get('refId')} does not use the datasource variable")
            queries.append((f"{where} query {t.get('refId')}", t.get("expr", "")))
    for where, query in queries:
        if not query.strip():
            problems.append(f"{where}: empty")
            continue
        depth = {"(": 0, "{": 0, "[": 0}
        closing = {")": "(", "}": "{", "]": "["}
        for ch in re.sub(r'"(?:[^"\\]|\\.)*"', '""', query):
            if ch in depth:
                depth[ch] += 1
            elif ch in closing:
                depth[closing[ch]] -= 1
                if depth[closing[ch]] < 0:
                    break
        if any(depth.values()):
            problems.append(f"{where}: unbalanced brackets in {query}")
        for var in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", query):
            if var not in variables and var not in GRAFANA_BUILTINS:
                problems.append(f"{where}: ${var} is not a dashboard variable")
    return problems


def check_dashboards(c, docs, values, name, namespace, chart):
    dash_values = values["metrics"]["dashboard"]
    maps = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == f"{name}-dashboards"]
    c.expect(len(maps) == (1 if dash_values["enabled"] else 0), "dashboard ConfigMap follows metrics.dashboard.enabled")
    files = {os.path.basename(p): p for p in glob.glob(os.path.join(chart, "dashboards", "*.json"))}
    if c.scenario == "default":
        # The check itself must catch a broken dashboard: a repeated panel id, an unknown variable, a lost bracket.
        with open(next(iter(files.values()))) as f:
            broken = json.load(f)
        broken["panels"][2]["id"] = broken["panels"][1]["id"]
        broken["panels"][1]["targets"][0]["expr"] = "sum(rate(x{pool=~\"$nope\"}[5m])"
        found = dashboard_problems(broken)
        c.expect(any("repeated" in p for p in found) and any("$nope" in p for p in found)
                 and any("unbalanced" in p for p in found), "dashboard check self-test: a broken dashboard is rejected",
                 str(found))
    if not maps:
        return
    (cm,) = maps
    meta = cm["metadata"]
    c.expect(meta["namespace"] == (dash_values["namespace"] or namespace),
             f"dashboard ConfigMap in namespace {dash_values['namespace'] or namespace}")
    c.expect(dash_values["labels"].items() <= meta["labels"].items() and
             dash_values["annotations"].items() <= (meta.get("annotations") or {}).items(),
             f"dashboard ConfigMap carries the sidecar labels {dash_values['labels']} and the given annotations")
    c.expect(set(cm["data"]) == set(files) and files, f"dashboard ConfigMap holds every dashboards/*.json: {sorted(files)}",
             str(sorted(cm["data"])))
    for key, text in cm["data"].items():
        try:
            dashboard = json.loads(text)
        except ValueError as e:
            c.expect(False, f"{key}: valid JSON", str(e))
            continue
        if key in files:
            with open(files[key]) as f:
                c.expect(dashboard == json.load(f), f"{key}: rendered as in dashboards/{key}")
        problems = dashboard_problems(dashboard)
        c.expect(not problems, f"{key}: {len(dashboard.get('panels', []))} panels, every query uses the datasource "
                 "variable, defined variables only, balanced brackets, unique panel ids", "; ".join(problems))


def check_network_policy(c, docs, values, name, pod_labels, ports):
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    np_values = values["networkPolicy"]
    c.expect(len(policies) == (1 if np_values["enabled"] else 0), "NetworkPolicy follows networkPolicy.enabled")
    if not policies:
        return
    spec = policies[0]["spec"]
    c.expect(spec["podSelector"]["matchLabels"].items() <= pod_labels.items(), "NetworkPolicy selects the operator pods")
    want_types = ["Ingress"] + (["Egress"] if np_values["egress"] else [])
    c.expect(spec["policyTypes"] == want_types, f"NetworkPolicy types {want_types}", str(spec["policyTypes"]))
    got = {}
    for rule in spec["ingress"]:
        for p in rule["ports"]:
            got[p["port"]] = rule.get("from", [])
    want = {"http": np_values["metricsFrom"]}
    if "webhook" in ports:
        want["webhook"] = [{"ipBlock": {"cidr": cidr}} for cidr in np_values.get("apiServerCidrs", [])] + np_values["webhookFrom"]
        c.expect(len(want["webhook"]) > 0, "NetworkPolicy admits the webhook port from named sources only (never any pod)")
    if "console" in ports:
        # The console signs every user in with a Kubernetes token; console.from narrows who may reach it (empty = any).
        want["console"] = values["console"].get("from", [])
    c.expect(got == want, "NetworkPolicy admits the webhook, http and console ports from the given sources only", str(got))
    c.expect(set(got) <= set(ports), "NetworkPolicy names only ports the container has")
    if np_values["egress"]:
        dns = spec["egress"][0]
        c.expect(sorted((p["port"], p["protocol"]) for p in dns["ports"]) == [(53, "TCP"), (53, "UDP")] and "to" not in dns,
                 "NetworkPolicy egress allows DNS")
        c.expect(spec["egress"][1:] == np_values["egress"], "NetworkPolicy egress: DNS plus the given rules")


def check_operator_tls(c, docs, name, namespace, hooks, env):
    """The default: the operator makes its own certificate. Nothing random is rendered (GitOps-safe)."""
    secret = f"{name}-webhook-operator-tls"
    c.expect(env.get("BACKSTAGE_WEBHOOK_TLS_SECRET", {}).get("value") == secret
             and env.get("BACKSTAGE_WEBHOOK_CONFIGURATION", {}).get("value") == name
             and env.get("BACKSTAGE_WEBHOOK_SERVICE", {}).get("value") == f"{name}-webhook",
             f"operator TLS: the operator keeps its pair in {secret} and the caBundle of {name}")
    c.expect(not [d for d in docs if d["kind"] in ("Secret", "Certificate", "Issuer")],
             "operator TLS: the chart renders no Secret, Certificate or Issuer")
    c.expect(all("caBundle" not in h["clientConfig"] for h in hooks),
             "operator TLS: no caBundle rendered (the operator writes it; a re-render never resets it)")
    roles = [d for d in docs if d["kind"] in ("Role", "ClusterRole") and d["metadata"]["name"] == f"{name}-webhook-certificate"]
    rules = [r for d in roles for r in d["rules"]]
    c.expect({"create"} in [set(r["verbs"]) for r in rules if r["resources"] == ["secrets"]]
             and any(r.get("resourceNames") == [secret] and set(r["verbs"]) == {"get", "update"} for r in rules)
             and any(r.get("resourceNames") == [name] and r["resources"] == ["validatingwebhookconfigurations"]
                     and set(r["verbs"]) == {"get", "patch"} for r in rules),
             "operator TLS: rights on its own Secret and its own webhook configuration only, by name", str(rules))


def finish(c):
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
