package dev.backstage.operator.main;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The chart's RBAC as the real API server's authorizer judges it ({@code kubectl auth can-i} as the operator's
 * ServiceAccount): by default the operator's rights end at the namespace it manages (the release namespace);
 * cluster-wide rights come only with {@code watchAllNamespaces: true}. The chart is installed without its webhook
 * and no pod runs here (no node): RBAC alone is under test.
 */
@Tag("cluster")
class ChartRbacOnApiServerTest {
    @Test
    void givenTheChartsDefaults_thenTheOperatorMayTouchOnlyItsOwnNamespace_andClusterWideIsAnExplicitValue() {
        RealApiServer api = RealApiServer.shared();
        ControlPlane cp = api.controlPlane();
        String ns = api.namespace("rbac");
        String release = "rbac-" + UUID.randomUUID().toString().substring(0, 8);
        String account = "system:serviceaccount:" + ns + ":" + release + "-backstage-operator";
        try {
            install(cp, release, ns);
            assertEquals("yes", canI(cp, account, "get", "secrets", "-n", ns));
            assertEquals("yes", canI(cp, account, "create", "deployments.apps", "-n", ns));
            assertEquals("yes", canI(cp, account, "watch", "backstageworkerpools.backstage.dev", "-n", ns));
            assertEquals("no", canI(cp, account, "get", "secrets", "-n", "kube-system"));
            assertEquals("no", canI(cp, account, "get", "secrets", "-n", "default"));
            assertEquals("no", canI(cp, account, "create", "deployments.apps", "-n", "kube-system"));
            assertEquals("no", canI(cp, account, "delete", "configmaps", "-n", "default"));
            assertEquals("no", canI(cp, account, "list", "backstageworkerpools.backstage.dev", "--all-namespaces"));
            assertEquals(
                    ns,
                    cp.kubectl(
                                    "get",
                                    "deployment",
                                    release + "-backstage-operator",
                                    "-n",
                                    ns,
                                    "-o",
                                    "jsonpath={.spec.template.spec.containers[0].env[?(@.name==\"WATCH_NAMESPACES\")].value}")
                            .orThrow()
                            .out()
                            .trim(),
                    "the operator watches the namespace its rights cover");

            install(cp, release, ns, "--set", "watchAllNamespaces=true");
            assertEquals("yes", canI(cp, account, "get", "secrets", "-n", "kube-system"));
            assertEquals("yes", canI(cp, account, "list", "backstageworkerpools.backstage.dev", "--all-namespaces"));
            assertEquals(
                    "",
                    cp.kubectl(
                                    "get",
                                    "deployment",
                                    release + "-backstage-operator",
                                    "-n",
                                    ns,
                                    "-o",
                                    "jsonpath={.spec.template.spec.containers[0].env[?(@.name==\"WATCH_NAMESPACES\")].value}")
                            .orThrow()
                            .out()
                            .trim(),
                    "cluster-wide: every namespace");
        } finally {
            cp.helm("uninstall", release, "-n", ns, "--wait=false");
            api.deleteNamespace(ns);
        }
    }

    private static void install(ControlPlane cp, String release, String ns, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "upgrade",
                "--install",
                release,
                cp.root().resolve("helm/backstage-operator").toString(),
                "-n",
                ns,
                "--skip-crds",
                "--set",
                "webhook.enabled=false",
                "--set",
                "replicas=1",
                "--set",
                "rbac.aggregateToDefaultRoles=false"));
        args.addAll(List.of(extra));
        cp.helm(args.toArray(String[]::new)).orThrow();
    }

    private static String canI(ControlPlane cp, String account, String... what) {
        List<String> args = new ArrayList<>(List.of("auth", "can-i"));
        args.addAll(List.of(what));
        args.addAll(List.of("--as", account));
        return cp.kubectl(args.toArray(String[]::new)).out().strip();
    }
}
