package dev.backstage.operator.certificates;

import dev.backstage.runtime.config.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the operator keeps its webhook certificate and whom it tells, from the environment the Helm chart sets.
 *
 * @param namespace                the operator's namespace, where the Secret lives ({@code POD_NAMESPACE})
 * @param secretName               the Secret holding the CA and serving pair ({@code BACKSTAGE_WEBHOOK_TLS_SECRET});
 *                                 its presence turns this mode on
 * @param webhookConfigurationName the ValidatingWebhookConfiguration whose {@code caBundle} is kept current
 *                                 ({@code BACKSTAGE_WEBHOOK_CONFIGURATION})
 * @param hostNames                the names the serving certificate is valid for: the webhook Service's
 *                                 ({@code BACKSTAGE_WEBHOOK_SERVICE}) short, namespaced and cluster-local names
 * @param plan                     lifetimes ({@code BACKSTAGE_WEBHOOK_CA_VALIDITY}, default 87600h;
 *                                 {@code BACKSTAGE_WEBHOOK_CERT_VALIDITY}, default 8760h) and the CA's promotion
 *                                 delay (two check intervals plus 5 s)
 * @param checkInterval            how often each replica reads the Secret and the caBundle
 *                                 ({@code BACKSTAGE_WEBHOOK_CERT_CHECK_INTERVAL}, default 30s)
 */
public record WebhookCertificateSettings(
        String namespace,
        String secretName,
        String webhookConfigurationName,
        List<String> hostNames,
        RotationPlan plan,
        Duration checkInterval) {
    public static final Duration DEFAULT_CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration DEFAULT_CERT_VALIDITY = Duration.ofDays(365);
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(30);

    public WebhookCertificateSettings {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(secretName, "secretName");
        Objects.requireNonNull(webhookConfigurationName, "webhookConfigurationName");
        hostNames = List.copyOf(hostNames);
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(checkInterval, "checkInterval");
    }

    /** The promotion delay that goes with {@code checkInterval}: every replica has checked twice, plus 5 s. */
    public static Duration promotionDelay(Duration checkInterval) {
        return checkInterval.multipliedBy(2).plusSeconds(5);
    }

    /** The CA's common name. */
    public String caName() {
        return webhookConfigurationName + "-webhook-ca";
    }

    /** Empty when {@code BACKSTAGE_WEBHOOK_TLS_SECRET} is unset: the certificate comes from elsewhere. */
    public static Optional<WebhookCertificateSettings> fromEnv(Map<String, String> env) {
        String secret = trimmed(env.get("BACKSTAGE_WEBHOOK_TLS_SECRET"));
        if (secret == null) {
            return Optional.empty();
        }
        String namespace = required(env, "POD_NAMESPACE", "the operator's namespace (the chart sets it from the pod)");
        String configuration = required(
                env,
                "BACKSTAGE_WEBHOOK_CONFIGURATION",
                "the ValidatingWebhookConfiguration whose caBundle the operator keeps current");
        String service = required(env, "BACKSTAGE_WEBHOOK_SERVICE", "the webhook Service's name");
        Duration caValidity = Durations.parseOr(
                "BACKSTAGE_WEBHOOK_CA_VALIDITY",
                trimmed(env.get("BACKSTAGE_WEBHOOK_CA_VALIDITY")),
                DEFAULT_CA_VALIDITY);
        Duration certValidity = Durations.parseOr(
                "BACKSTAGE_WEBHOOK_CERT_VALIDITY",
                trimmed(env.get("BACKSTAGE_WEBHOOK_CERT_VALIDITY")),
                DEFAULT_CERT_VALIDITY);
        Duration interval = Durations.parseOr(
                "BACKSTAGE_WEBHOOK_CERT_CHECK_INTERVAL",
                trimmed(env.get("BACKSTAGE_WEBHOOK_CERT_CHECK_INTERVAL")),
                DEFAULT_CHECK_INTERVAL);
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("BACKSTAGE_WEBHOOK_CERT_CHECK_INTERVAL must be positive, e.g. 30s");
        }
        return Optional.of(new WebhookCertificateSettings(
                namespace,
                secret,
                configuration,
                serviceHostNames(service, namespace),
                new RotationPlan(caValidity, certValidity, promotionDelay(interval)),
                interval));
    }

    /** The names the API server may dial a Service by. */
    public static List<String> serviceHostNames(String service, String namespace) {
        return List.of(
                service,
                service + "." + namespace,
                service + "." + namespace + ".svc",
                service + "." + namespace + ".svc.cluster.local");
    }

    private static String required(Map<String, String> env, String variable, String what) {
        String value = trimmed(env.get(variable));
        if (value == null) {
            throw new IllegalArgumentException(
                    variable + " must be set (" + what + ") when BACKSTAGE_WEBHOOK_TLS_SECRET" + " is set");
        }
        return value;
    }

    private static String trimmed(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
