package dev.backstage.runtime.main;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.logging.LogBackend;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The container's entry point: reads {@code $BACKSTAGE_CONFIG} (default
 * {@code /etc/backstage/runtime.yaml}, rendered by the operator), finds task modules on the classpath,
 * starts the worker, serves health and metrics, and shuts down gracefully on SIGTERM. Logs to stdout as
 * {@code BACKSTAGE_LOG_LEVEL}, {@code BACKSTAGE_LOG_LEVELS} and {@code BACKSTAGE_LOG_FORMAT} say (text or JSON
 * lines; see {@link dev.backstage.runtime.logging.LogSettings}).
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
        return config.server() != null && config.server().port() != null
                ? config.server().port()
                : 8080;
    }

    public static void main(String[] args) throws Exception {
        LogBackend.configureFromEnvOrExit(System.getenv());
        String path = args.length > 0 ? args[0] : System.getenv().getOrDefault("BACKSTAGE_CONFIG", DEFAULT_CONFIG);
        RuntimeConfig config = RuntimeConfigFiles.read(Path.of(path));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WorkerFromConfig.Built built;
        try {
            built = new WorkerFromConfig(System::getenv).build(config, WorkerFromConfig.discoverModules(), registry);
        } catch (RuntimeException e) {
            // A configuration or connection problem (a broker that is down, refused credentials): one line that says
            // what to fix (the pod's termination log), at every level without a stack trace.
            log.error("worker cannot start: {}", StartFailure.describe(e, config));
            System.exit(1);
            return;
        }
        if (built.modules().isEmpty()) {
            log.warn("no TaskModule found on the classpath: add your jar with META-INF/services/"
                    + "dev.backstage.runtime.api.TaskModule to the image");
        }
        log.info("task modules: {}", built.modules());
        int port = httpPort(config);
        Worker worker = built.worker();
        AtomicReference<String> startFailure = new AtomicReference<>();
        int status;
        try (HealthServer health = new HealthServer(
                port,
                () -> startFailure.get() != null ? Optional.of(startFailure.get()) : worker.failure(),
                worker::isRunning,
                built.provider()::health,
                registry)) {
            log.info("health and metrics on :{} (/healthz, /readyz, /metrics)", health.port());
            // SIGTERM (and SIGINT) start the graceful shutdown here instead of the JVM's own exit, so a clean
            // drain ends with status 0 rather than 143.
            Runnable stop = () -> new Thread(worker::close, "backstage-shutdown").start();
            Signal.handle(new Signal("TERM"), signal -> stop.run());
            Signal.handle(new Signal("INT"), signal -> stop.run());
            try {
                worker.start();
                worker.run(); // returns after a signal and the graceful shutdown
                status = 0;
                log.info("worker stopped; exiting with status 0");
            } catch (RuntimeException e) {
                startFailure.set(String.valueOf(e.getMessage()));
                log.error("worker failed: {}", e.getMessage(), e);
                worker.close();
                status = 1;
            }
        }
        System.exit(status);
    }
}
