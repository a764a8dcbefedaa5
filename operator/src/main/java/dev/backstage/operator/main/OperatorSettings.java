package dev.backstage.operator.main;

import dev.backstage.runtime.config.Durations;
import dev.backstage.runtime.logging.LogSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's process settings, from the environment (the Helm chart sets them).
 *
 * @param watchNamespaces  namespaces to watch; empty = all ({@code WATCH_NAMESPACES}, comma-separated)
 * @param leaderElection   whether to hold a Lease before reconciling ({@code BACKSTAGE_LEADER_ELECTION}, default true)
 * @param lease            the Lease: {@code BACKSTAGE_LEASE_NAME}, {@code BACKSTAGE_LEASE_NAMESPACE} (else
 *                         {@code POD_NAMESPACE}), {@code BACKSTAGE_LEASE_DURATION}, {@code BACKSTAGE_LEASE_RENEW_DEADLINE},
 *                         {@code BACKSTAGE_LEASE_RETRY_PERIOD} (Go-style durations)
 * @param identity         this replica's identity in the Lease ({@code POD_NAME}, else {@code HOSTNAME})
 * @param httpPort         port of /healthz, /readyz and /metrics ({@code BACKSTAGE_HTTP_PORT}, default 8081)
 * @param exitWhenLeadershipLost  exit the process when the Lease is lost (always in a pod, so a deposed leader
 *                         can never reconcile beside the new one; tests that stop and start operators in one JVM
 *                         turn it off)
 * @param workerLogging    the log level and format of the pools' workers: {@code BACKSTAGE_WORKER_LOG_LEVEL},
 *                         {@code BACKSTAGE_WORKER_LOG_LEVELS}, {@code BACKSTAGE_WORKER_LOG_FORMAT} (the chart's
 *                         {@code workers.logLevel} / {@code workers.logFormat}), passed to every worker container as
 *                         {@code BACKSTAGE_LOG_*} unless the pool's own {@code env} sets them
 */
public record OperatorSettings(
        Set<String> watchNamespaces,
        boolean leaderElection,
        LeaseSettings lease,
        String identity,
        int httpPort,
        boolean exitWhenLeadershipLost,
        LogSettings workerLogging) {
    public static final int DEFAULT_HTTP_PORT = 8081;
    /** Prefix of the workers' logging variables in the operator's environment. */
    public static final String WORKER_LOG_PREFIX = "BACKSTAGE_WORKER_LOG_";

    public OperatorSettings {
        watchNamespaces = Set.copyOf(watchNamespaces);
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(workerLogging, "workerLogging");
    }

    /** Workers log with the runtime's defaults (info, text). */
    public OperatorSettings(
            Set<String> watchNamespaces,
            boolean leaderElection,
            LeaseSettings lease,
            String identity,
            int httpPort,
            boolean exitWhenLeadershipLost) {
        this(watchNamespaces, leaderElection, lease, identity, httpPort, exitWhenLeadershipLost, LogSettings.DEFAULTS);
    }

    public boolean watchesAllNamespaces() {
        return watchNamespaces.isEmpty();
    }

    public static OperatorSettings fromEnv(Map<String, String> env) {
        Set<String> namespaces = Arrays.stream(
                        env.getOrDefault("WATCH_NAMESPACES", "").split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
        boolean leaderElection = !"false"
                .equalsIgnoreCase(
                        env.getOrDefault("BACKSTAGE_LEADER_ELECTION", "true").trim());
        LeaseSettings lease = new LeaseSettings(
                nonBlank(env.get("BACKSTAGE_LEASE_NAME"), LeaseSettings.DEFAULT_NAME),
                nonBlank(env.get("BACKSTAGE_LEASE_NAMESPACE"), nonBlank(env.get("POD_NAMESPACE"), null)),
                duration(env, "BACKSTAGE_LEASE_DURATION", LeaseSettings.DEFAULT_DURATION),
                duration(env, "BACKSTAGE_LEASE_RENEW_DEADLINE", LeaseSettings.DEFAULT_RENEW_DEADLINE),
                duration(env, "BACKSTAGE_LEASE_RETRY_PERIOD", LeaseSettings.DEFAULT_RETRY_PERIOD));
        String identity = nonBlank(env.get("POD_NAME"), nonBlank(env.get("HOSTNAME"), "backstage-operator"));
        int port;
        String portText = nonBlank(env.get("BACKSTAGE_HTTP_PORT"), String.valueOf(DEFAULT_HTTP_PORT));
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("BACKSTAGE_HTTP_PORT must be a port number, got '" + portText + "'", e);
        }
        LogSettings workerLogging = LogSettings.fromEnv(env, WORKER_LOG_PREFIX, LogSettings.DEFAULTS);
        return new OperatorSettings(namespaces, leaderElection, lease, identity, port, true, workerLogging);
    }

    private static Duration duration(Map<String, String> env, String variable, Duration fallback) {
        String value = nonBlank(env.get(variable), null);
        return value == null ? fallback : Durations.parse(variable, value);
    }

    private static String nonBlank(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
