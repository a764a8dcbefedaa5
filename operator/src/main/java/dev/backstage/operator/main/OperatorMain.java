package dev.backstage.operator.main;

import dev.backstage.operator.admission.WebhookLimits;
import dev.backstage.operator.admission.WebhookServer;
import dev.backstage.operator.admission.WebhookSettings;
import dev.backstage.operator.certificates.WebhookCertificateManager;
import dev.backstage.operator.certificates.WebhookCertificateSettings;
import dev.backstage.operator.console.Console;
import dev.backstage.operator.console.ConsoleSettings;
import dev.backstage.operator.pool.StatusHeartbeat;
import dev.backstage.runtime.logging.LogBackend;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator container's entry point: reads {@link OperatorSettings} from the environment, serves health and
 * metrics, and runs the reconcilers until SIGTERM (leader-elected when enabled, so only one replica reconciles).
 * Logs to stdout as {@code BACKSTAGE_LOG_LEVEL}, {@code BACKSTAGE_LOG_LEVELS} and {@code BACKSTAGE_LOG_FORMAT} say
 * (text or JSON lines; see {@link dev.backstage.runtime.logging.LogSettings}).
 */
public final class OperatorMain {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorMain.class);

    private OperatorMain() {}

    public static void main(String[] args) throws Exception {
        // The JDK's HTTP server writes a response's headers and body as two segments; without TCP_NODELAY the body
        // waits for the API server's delayed ACK, ~40 ms on every admission call. Read once, when the first server
        // (health or webhook) is made, so it is set before either; an explicit -D wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        CommonPool.sizeForAsyncCompletions();
        LogBackend.configureFromEnvOrExit(System.getenv());
        OperatorSettings settings;
        Optional<WebhookCertificateSettings> certificateSettings;
        ConsoleSettings consoleSettings;
        try {
            settings = OperatorSettings.fromEnv(System.getenv());
            certificateSettings = WebhookCertificateSettings.fromEnv(System.getenv());
            consoleSettings = ConsoleSettings.fromEnv(System.getenv());
            StatusHeartbeat.fromEnv(System.getenv(), Clock.systemUTC()); // read again where it is used
        } catch (IllegalArgumentException e) {
            LOG.error("bad setting: {}", e.getMessage()); // one line: the variable, what it must be, what it was
            System.exit(2);
            return;
        }
        LOG.info(
                "starting Backstage operator: namespaces={}, leaderElection={} (lease {}/{}), identity={}",
                settings.watchesAllNamespaces() ? "all" : settings.watchNamespaces(),
                settings.leaderElection(),
                settings.lease().namespace() == null
                        ? "<client namespace>"
                        : settings.lease().namespace(),
                settings.lease().name(),
                settings.identity());
        LOG.info("workers log with {}", settings.workerLogging().toEnv());

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);

        KubernetesClient client = new KubernetesClientBuilder().build();
        AtomicReference<BackstageOperator> operatorRef = new AtomicReference<>();
        HealthServer health = new HealthServer(
                settings.httpPort(),
                () -> operatorRef.get() == null
                        ? null
                        : operatorRef.get().operator().getRuntimeInfo(),
                registry);
        health.start();

        BackstageOperator operator =
                BackstageOperator.create(client, settings, BackstageOperator.metrics(registry), Clock.systemUTC());
        operator.backlogMonitors().exportTo(registry); // backstage_pool_* gauges on /metrics
        operatorRef.set(operator);

        // The webhook answers admission on every replica (the Service spreads calls), leader or not, reading pools'
        // topologies from the operator's informer cache (running on every replica once the operator starts).
        WebhookSettings webhookSettings = WebhookSettings.fromEnv(System.getenv());
        Optional<WebhookServer> webhook = Optional.empty();
        Optional<WebhookCertificateManager> certificates = Optional.empty();
        if (certificateSettings.isPresent()) {
            // The operator's own CA and serving certificate (the chart's default): kept in a Secret, rotated, the
            // caBundle patched; the server swaps the pair without a restart.
            WebhookCertificateManager manager =
                    new WebhookCertificateManager(client, certificateSettings.get(), Clock.systemUTC());
            manager.start();
            certificates = Optional.of(manager);
            WebhookServer server = new WebhookServer(
                    new InetSocketAddress(webhookSettings.port()),
                    manager.keyManager(),
                    client,
                    WebhookLimits.DEFAULT,
                    operator.cachedTopologies());
            server.start();
            webhook = Optional.of(server);
        } else if (webhookSettings.tlsDir().isPresent()) {
            WebhookServer server = new WebhookServer(
                    new InetSocketAddress(webhookSettings.port()),
                    webhookSettings.tlsDir().get(),
                    client,
                    WebhookLimits.DEFAULT,
                    operator.cachedTopologies());
            server.start();
            webhook = Optional.of(server);
        } else {
            LOG.warn("neither BACKSTAGE_WEBHOOK_TLS_SECRET nor WEBHOOK_TLS_DIR is set: the admission webhook is off"
                    + " (the CRD schema and CEL rules still apply)");
        }
        Optional<WebhookServer> webhookToClose = webhook;
        Optional<WebhookCertificateManager> certificatesToClose = certificates;

        // The console runs on every replica (its informers and histories are its own), leader or not.
        Optional<Console> console = Optional.empty();
        if (consoleSettings.enabled()) {
            try {
                Console started = new Console(
                        client, consoleSettings, settings.watchNamespaces(), operator.events(), Clock.systemUTC());
                started.start();
                console = Optional.of(started);
            } catch (java.io.IOException e) {
                // The operator's work goes on without its console; the line says what to change.
                LOG.error("{}", e.getMessage());
            }
        } else {
            LOG.info("the console is off (BACKSTAGE_CONSOLE_ENABLED=false)");
        }
        Optional<Console> consoleToClose = console;

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            LOG.info("shutting down (SIGTERM or exit): stopping the operator");
                            try {
                                operator.stop();
                            } finally {
                                webhookToClose.ifPresent(WebhookServer::close);
                                certificatesToClose.ifPresent(WebhookCertificateManager::close);
                                consoleToClose.ifPresent(Console::close);
                                health.close();
                                gc.close();
                                client.close();
                                stopped.countDown();
                            }
                        },
                        "operator-shutdown"));
        operator.start();
        LOG.info("operator started");
        stopped.await();
    }
}
