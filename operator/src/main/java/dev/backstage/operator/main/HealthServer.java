package dev.backstage.operator.main;

import dev.backstage.runtime.main.ProbeServer;
import dev.backstage.runtime.main.ProbeServer.Check;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's /healthz (process up and operator started), /readyz (every informer connected and
 * synced) and /metrics (Prometheus text) on one port.
 */
public final class HealthServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HealthServer.class);

    private final ProbeServer server;

    public HealthServer(int port, Supplier<RuntimeInfo> runtime, PrometheusMeterRegistry registry) throws IOException {
        this.server = new ProbeServer(
                port,
                "operator-http",
                () -> {
                    RuntimeInfo info = runtime.get();
                    return info != null && info.isStarted() ? Check.ok() : Check.failing("operator not started");
                },
                () -> {
                    RuntimeInfo info = runtime.get();
                    if (info == null || !info.isStarted()) {
                        return Check.failing("operator not started");
                    }
                    if (!info.allEventSourcesAreHealthy()) {
                        return Check.failing("unhealthy event sources: "
                                + info.unhealthyEventSources().keySet());
                    }
                    return Check.ok();
                },
                registry::scrape);
    }

    public void start() {
        server.start();
        LOG.info("serving /healthz, /readyz and /metrics on port {}", port());
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
