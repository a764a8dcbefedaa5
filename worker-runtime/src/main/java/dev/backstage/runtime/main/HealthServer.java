package dev.backstage.runtime.main;

import dev.backstage.runtime.main.ProbeServer.Check;
import dev.backstage.runtime.spi.ProviderHealth;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The runtime's probes: {@code /healthz} (the process is alive and the worker has not failed), {@code /readyz}
 * (the worker is running and its broker answers) and Prometheus {@code /metrics}, on one port.
 */
public final class HealthServer implements AutoCloseable {
    private final ProbeServer server;

    public HealthServer(int port, BooleanSupplier alive, BooleanSupplier running, Supplier<ProviderHealth> broker,
            PrometheusMeterRegistry registry) throws IOException {
        server = new ProbeServer(port, "backstage-health-http",
                () -> alive.getAsBoolean() ? Check.ok() : Check.failing("worker failed"),
                () -> {
                    if (!running.getAsBoolean()) {
                        return Check.failing("worker not running");
                    }
                    ProviderHealth health = broker.get();
                    return health.up() ? Check.ok() : Check.failing("broker down: " + health.detail());
                },
                registry::scrape).start();
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
