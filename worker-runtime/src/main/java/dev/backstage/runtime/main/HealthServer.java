package dev.backstage.runtime.main;

import dev.backstage.runtime.main.ProbeServer.Check;
import dev.backstage.runtime.spi.ProviderHealth;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The runtime's probes, on one port:
 * <ul>
 *   <li>{@code /healthz} fails when the worker cannot do its work any more — a consumer or poll loop, the
 *       reclaimer or the delay promoter stopped for good — with that reason, so Kubernetes restarts the pod;
 *   <li>{@code /readyz} fails while the worker is not running, has failed, or its broker does not answer, with
 *       the cause's own text (e.g. the broker's error, or that it did not answer in time);
 *   <li>Prometheus {@code /metrics}.
 * </ul>
 */
public final class HealthServer implements AutoCloseable {
    private final ProbeServer server;

    /**
     * @param failure why the worker stopped working for good, empty while it works
     * @param running true while the worker runs (false before start and once a shutdown began)
     */
    public HealthServer(
            int port,
            Supplier<Optional<String>> failure,
            BooleanSupplier running,
            Supplier<ProviderHealth> broker,
            PrometheusMeterRegistry registry)
            throws IOException {
        server = new ProbeServer(
                        port,
                        "backstage-health-http",
                        () -> failure.get()
                                .map(reason -> Check.failing("worker failed: " + reason))
                                .orElse(Check.ok()),
                        () -> {
                            Optional<String> failed = failure.get();
                            if (failed.isPresent()) {
                                return Check.failing("worker failed: " + failed.get());
                            }
                            if (!running.getAsBoolean()) {
                                return Check.failing("worker not running");
                            }
                            ProviderHealth health = broker.get();
                            return health.up() ? Check.ok() : Check.failing("broker down: " + health.detail());
                        },
                        registry::scrape)
                .start();
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
