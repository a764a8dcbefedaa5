package dev.backstage.operator.certificates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The chart's default webhook TLS on the real API server, with the operator's rights: the chart renders no key and
 * no caBundle; the certificate manager, configured from the rendered Deployment's environment and acting as the
 * operator's ServiceAccount (impersonated, so the chart's RBAC is what allows it), makes the Secret and fills the
 * caBundle of both webhooks with the CA that signed a certificate for the webhook Service; a second
 * {@code helm upgrade} (what a GitOps sync does) keeps that caBundle and does not change the pod template. No pod
 * runs here (a priority class that does not exist keeps the ReplicaSet from making one, so no node agent of another
 * test starts it): the webhook answering through the chart's Service is shown by the e2e scenario.
 */
@Tag("cluster")
class ChartWebhookCertificateOnApiServerTest {
    @Test
    void givenTheChartsDefaults_whenTheOperatorsManagerRuns_thenTheCaBundleIsFilledAndSurvivesAnUpgrade()
            throws Exception {
        RealApiServer api = RealApiServer.shared();
        ControlPlane cp = api.controlPlane();
        String ns = api.namespace("chart-certs");
        String release = "certs-" + UUID.randomUUID().toString().substring(0, 8);
        String fullname = release + "-backstage-operator";
        KubernetesClient admin = api.client();
        try {
            install(cp, release, ns);
            ValidatingWebhook rendered = admin.admissionRegistration()
                    .v1()
                    .validatingWebhookConfigurations()
                    .withName(fullname)
                    .get()
                    .getWebhooks()
                    .get(0);
            assertEquals(null, rendered.getClientConfig().getCaBundle(), "the chart renders no caBundle");
            Deployment deployment = admin.apps()
                    .deployments()
                    .inNamespace(ns)
                    .withName(fullname)
                    .get();
            Map<String, String> env = new HashMap<>();
            for (EnvVar variable : deployment
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getEnv()) {
                if (variable.getValue() != null) {
                    env.put(variable.getName(), variable.getValue());
                }
            }
            env.put("POD_NAMESPACE", ns); // from the pod's metadata in a cluster
            assertFalse(env.containsKey("WEBHOOK_TLS_DIR"), "no TLS files are mounted");
            WebhookCertificateSettings settings =
                    WebhookCertificateSettings.fromEnv(env).orElseThrow();

            try (KubernetesClient operator = asServiceAccount(cp, ns, fullname);
                    WebhookCertificateManager manager =
                            new WebhookCertificateManager(operator, settings, Clock.systemUTC())) {
                manager.start();
                assertTrue(manager.caBundleInPlace(), "the caBundle is written with the operator's rights");
            }
            String bundle = caBundles(admin, fullname).get(0);
            assertEquals(List.of(bundle, bundle), caBundles(admin, fullname), "both webhooks trust the same CA");
            X509Certificate ca = WebhookKeyMaterial.certificates(
                            new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII))
                    .get(0);
            WebhookKeyMaterial stored = WebhookKeyMaterial.fromSecretData(admin.secrets()
                            .inNamespace(ns)
                            .withName(fullname + "-webhook-operator-tls")
                            .get()
                            .getData())
                    .orElseThrow();
            stored.serving().certificate().verify(ca.getPublicKey());
            assertTrue(
                    stored.serving().certificate().getSubjectAlternativeNames().stream()
                            .anyMatch(name -> (fullname + "-webhook." + ns + ".svc").equals(name.get(1))),
                    "the certificate names the webhook Service as the API server dials it");

            String template = admin.apps()
                    .deployments()
                    .inNamespace(ns)
                    .withName(fullname)
                    .get()
                    .getSpec()
                    .getTemplate()
                    .toString();
            install(cp, release, ns);
            assertEquals(List.of(bundle, bundle), caBundles(admin, fullname), "a re-render keeps the caBundle");
            assertEquals(
                    template,
                    admin.apps()
                            .deployments()
                            .inNamespace(ns)
                            .withName(fullname)
                            .get()
                            .getSpec()
                            .getTemplate()
                            .toString(),
                    "a re-render does not roll the operator");
        } finally {
            cp.helm("uninstall", release, "-n", ns, "--wait=false");
            api.deleteNamespace(ns);
        }
    }

    private static List<String> caBundles(KubernetesClient client, String name) {
        return client
                .admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName(name)
                .get()
                .getWebhooks()
                .stream()
                .map(w -> w.getClientConfig().getCaBundle())
                .toList();
    }

    private static KubernetesClient asServiceAccount(ControlPlane cp, String ns, String account) throws Exception {
        Config admin = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
        Config config = new ConfigBuilder(admin)
                .withImpersonateUsername("system:serviceaccount:" + ns + ":" + account)
                .build();
        KubernetesClient client =
                new KubernetesClientBuilder().withConfig(config).build();
        assertNotNull(client);
        return client;
    }

    private static void install(ControlPlane cp, String release, String ns) {
        List<String> args = new ArrayList<>(List.of(
                "upgrade",
                "--install",
                release,
                cp.root().resolve("helm/backstage-operator").toString(),
                "-n",
                ns,
                "--skip-crds",
                "--set",
                "replicas=1",
                "--set",
                "priorityClassName=no-such-class-so-no-pod",
                "--set",
                "rbac.aggregateToDefaultRoles=false"));
        cp.helm(args.toArray(String[]::new)).orThrow();
    }
}
