package dev.backstage.runtime.main;

import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container's entry point: reads {@code $BACKSTAGE_CONFIG} (default
 * {@code /etc/backstage/runtime.yaml}, rendered by the operator), finds task modules on the classpath,
 * starts the worker, serves health and metrics, and shuts down gracefully on SIGTERM.
 */
public final class RuntimeMain {
    private static final Logger log = LoggerFactory.getLogger(RuntimeMain.class);
    public static final String DEFAULT_CONFIG = "/etc/backstage/runtime.yaml";

    private RuntimeMain() {}

    /**
     * {@code $BACKSTAGE_HTTP_PORT} wins over {@code server.port} (default 8080): it lets several runtimes share
     * one host, as the e2e suite's local kubelet does.
     */
    static int httpPort(RuntimeConfig config) {
        String override = System.getenv("BACKSTAGE_HTTP_PORT");
        if (override != null && !override.isBlank()) {
            return Integer.parseInt(override.trim());
        }
        return config.server() != null && config.server().port() != null ? config.server().port() : 8080;
    }

    public static void main(String[] args) throws Exception {
        String path = args.length > 0 ? args[0] : System.getenv().getOrDefault("BACKSTAGE_CONFIG", DEFAULT_CONFIG);
        RuntimeConfig config = RuntimeConfigFiles.read(Path.of(path));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WorkerFromConfig.Built built = new WorkerFromConfig(System::getenv)
                .build(config, WorkerFromConfig.discoverModules(), registry);
        if (built.modules().isEmpty()) {
            log.warn("no TaskModule found on the classpath: add your jar with META-INF/services/"
                    + "dev.backstage.runtime.api.TaskModule to the image");
        }
        log.info("task modules: {}", built.modules());
        int port = httpPort(config);
        AtomicBoolean failed = new AtomicBoolean();
        try (HealthServer health = new HealthServer(port, () -> !failed.get(), built.worker()::isRunning,
                built.provider()::health, registry)) {
            log.info("health and metrics on :{} (/healthz, /readyz, /metrics)", health.port());
            built.worker().run(); // returns after SIGTERM and a graceful shutdown
        } catch (RuntimeException e) {
            failed.set(true);
            log.error("worker failed: {}", e.getMessage(), e);
            built.worker().close();
            System.exit(1);
        }
    }
}
