package dev.backstage.operator.certificates;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook's certificate on one replica in step with all others: every {@code checkInterval} it reads the
 * Secret, writes a new CA or serving pair when {@link RotationPlan} says so (an update conditional on the
 * resourceVersion it read: of two replicas racing, one writes and the other reads the winner's pair next), patches
 * the ValidatingWebhookConfiguration's {@code caBundle} when it differs, and hands the pair to the
 * {@link ServingKeyManager}. While the caBundle is not in place (the configuration not created yet, or a
 * {@code helm upgrade} removed it) it checks every 2 s. Logs name certificates by serial; no key is ever logged.
 */
public final class WebhookCertificateManager implements AutoCloseable {
    static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    static final String MANAGED_BY = "backstage-operator";
    private static final Duration NOT_IN_PLACE_INTERVAL = Duration.ofSeconds(2);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final int WRITE_ATTEMPTS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(WebhookCertificateManager.class);

    private final KubernetesClient client;
    private final WebhookCertificateSettings settings;
    private final Clock clock;
    private final ServingKeyManager keyManager = new ServingKeyManager();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "webhook-certificates");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean caBundleInPlace;
    private volatile String lastProblem = "";

    public WebhookCertificateManager(KubernetesClient client, WebhookCertificateSettings settings, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The key manager the webhook server serves from. */
    public ServingKeyManager keyManager() {
        return keyManager;
    }

    /**
     * Reads or makes the pair before returning (so the server starts with a certificate), retrying for up to a
     * minute, then keeps checking in the background.
     *
     * @throws IllegalStateException with the last problem when no pair could be read or written
     */
    public void start() {
        Instant deadline = clock.instant().plus(START_TIMEOUT);
        while (!check()) {
            if (clock.instant().isAfter(deadline)) {
                throw new IllegalStateException(
                        "no webhook certificate after " + START_TIMEOUT.toSeconds() + " s: " + lastProblem);
            }
            try {
                Thread.sleep(NOT_IN_PLACE_INTERVAL.toMillis()); // retry pause of a start-up loop, not a test wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while making the webhook certificate", e);
            }
        }
        schedule(caBundleInPlace ? settings.checkInterval() : NOT_IN_PLACE_INTERVAL);
    }

    /** Whether the last check found the caBundle of every webhook current. */
    public boolean caBundleInPlace() {
        return caBundleInPlace;
    }

    private void schedule(Duration delay) {
        if (!timer.isShutdown()) {
            timer.schedule(
                    () -> {
                        check();
                        schedule(
                                caBundleInPlace
                                        ? settings.checkInterval()
                                        : minimum(NOT_IN_PLACE_INTERVAL, settings.checkInterval()));
                    },
                    delay.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** One round; true when a pair is served (the caBundle may still be missing). */
    boolean check() {
        try {
            WebhookKeyMaterial material = currentMaterial();
            String bundle = material.caBundlePem(clock.instant());
            try {
                caBundleInPlace = ensureCaBundle(bundle);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                caBundleInPlace = ensureCaBundle(bundle); // another replica patched it meanwhile: read it again
            }
            keyManager.use(material);
            lastProblem = "";
            return true;
        } catch (KubernetesClientException e) {
            problem(apiProblem(e));
        } catch (RuntimeException e) {
            problem(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return !keyManager.servingSerial().isEmpty();
    }

    private WebhookKeyMaterial currentMaterial() {
        for (int attempt = 1; ; attempt++) {
            Secret secret = client.secrets()
                    .inNamespace(settings.namespace())
                    .withName(settings.secretName())
                    .get();
            Optional<WebhookKeyMaterial> stored =
                    secret == null ? Optional.empty() : WebhookKeyMaterial.fromSecretData(secret.getData());
            Optional<RotationPlan.Change> change =
                    settings.plan().decide(stored, settings.hostNames(), settings.caName(), clock.instant());
            if (change.isEmpty()) {
                return stored.orElseThrow();
            }
            WebhookKeyMaterial written = stored.isEmpty()
                    ? adoptingTrustedCa(change.get().material())
                    : change.get().material();
            try {
                write(secret, written.toSecretData());
                LOG.info(
                        "webhook certificate in Secret {}/{}: {}; serving {} until {}",
                        settings.namespace(),
                        settings.secretName(),
                        change.get().reason(),
                        written.serving().serial(),
                        written.serving().notAfter());
                return written;
            } catch (KubernetesClientException e) {
                if ((e.getCode() != 409) || attempt >= WRITE_ATTEMPTS) {
                    throw e;
                }
                // another replica wrote first: read its pair
            }
        }
    }

    /**
     * A first pair keeps the CA the webhook configuration trusts already (e.g. the one an earlier chart generated) as
     * the previous CA, so replicas of the earlier release that still serve its certificate stay trusted while they
     * are replaced. It leaves the caBundle at the next CA rotation, or when it expires.
     */
    private WebhookKeyMaterial adoptingTrustedCa(WebhookKeyMaterial fresh) {
        ValidatingWebhookConfiguration configuration = client.admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName(settings.webhookConfigurationName())
                .get();
        if (configuration == null
                || configuration.getWebhooks().isEmpty()
                || configuration.getWebhooks().get(0).getClientConfig().getCaBundle() == null) {
            return fresh;
        }
        try {
            String pem = new String(
                    Base64.getDecoder()
                            .decode(configuration
                                    .getWebhooks()
                                    .get(0)
                                    .getClientConfig()
                                    .getCaBundle()),
                    StandardCharsets.US_ASCII);
            Instant now = clock.instant();
            return WebhookKeyMaterial.certificates(pem).stream()
                    .filter(ca -> ca.getBasicConstraints() >= 0
                            && ca.getNotAfter().toInstant().isAfter(now))
                    .findFirst()
                    .map(ca -> new WebhookKeyMaterial(fresh.ca(), fresh.serving(), fresh.nextCa(), Optional.of(ca)))
                    .orElse(fresh);
        } catch (java.io.IOException | java.security.GeneralSecurityException | IllegalArgumentException e) {
            return fresh; // an unreadable caBundle is replaced
        }
    }

    private void write(Secret existing, Map<String, String> data) {
        if (existing == null) {
            client.secrets()
                    .inNamespace(settings.namespace())
                    .resource(new SecretBuilder()
                            .withNewMetadata()
                            .withName(settings.secretName())
                            .withNamespace(settings.namespace())
                            .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                            .endMetadata()
                            .withType("kubernetes.io/tls")
                            .withData(data)
                            .build())
                    .create();
        } else {
            // Conditional on the resourceVersion read: a concurrent writer makes this a 409.
            Secret updated = new SecretBuilder(existing).withData(data).build();
            client.secrets().inNamespace(settings.namespace()).resource(updated).update();
        }
    }

    /** Patches every webhook whose caBundle differs; false when the configuration does not exist (yet). */
    private boolean ensureCaBundle(String bundlePem) {
        String bundle = Base64.getEncoder().encodeToString(bundlePem.getBytes(StandardCharsets.US_ASCII));
        var resource = client.admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName(settings.webhookConfigurationName());
        ValidatingWebhookConfiguration configuration = resource.get();
        if (configuration == null) {
            problem("ValidatingWebhookConfiguration " + settings.webhookConfigurationName() + " not found (yet)");
            return false;
        }
        if (configuration.getWebhooks().stream()
                .allMatch(w -> bundle.equals(w.getClientConfig().getCaBundle()))) {
            return true;
        }
        resource.edit(c -> {
            for (ValidatingWebhook webhook : c.getWebhooks()) {
                webhook.getClientConfig().setCaBundle(bundle);
            }
            return c;
        });
        LOG.info(
                "caBundle of ValidatingWebhookConfiguration {} updated ({} webhooks)",
                settings.webhookConfigurationName(),
                configuration.getWebhooks().size());
        return true;
    }

    private String apiProblem(KubernetesClientException e) {
        String status = e.getStatus() == null
                ? String.valueOf(e.getMessage())
                : e.getStatus().getMessage();
        if (e.getCode() == 403) {
            return "forbidden: the operator needs get, create and update on Secret " + settings.namespace() + "/"
                    + settings.secretName() + " and get and patch on ValidatingWebhookConfiguration "
                    + settings.webhookConfigurationName() + " (the chart's Role and ClusterRole grant them): " + status;
        }
        return "API call failed (HTTP " + e.getCode() + "): " + status;
    }

    private void problem(String problem) {
        if (!problem.equals(lastProblem)) {
            LOG.warn("webhook certificate: {}", problem);
        }
        lastProblem = problem;
    }

    private static Duration minimum(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
