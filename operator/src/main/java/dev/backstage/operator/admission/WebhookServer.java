package dev.backstage.operator.admission;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The validating admission webhook over HTTPS (the API server calls webhooks over TLS only). The paths are a fixed
 * contract with the Helm chart's ValidatingWebhookConfiguration. The key pair comes from a key manager that may swap
 * it between handshakes: the operator's own certificate, or {@code tls.crt} and {@code tls.key} in one directory
 * (cert-manager, or a Secret of the user's), re-read when it is rotated. Slow or stalled callers cannot exhaust it: a
 * bounded number of threads, each exchange cut off at a deadline, request bodies bounded in size
 * ({@link WebhookLimits}, {@link DeadlineExecutor}, {@link AdmissionEndpoint}).
 */
public final class WebhookServer implements AutoCloseable {
    public static final String TOPOLOGY_PATH = "/validate/backstagetopology";
    public static final String POOL_PATH = "/validate/backstageworkerpool";
    public static final int DEFAULT_PORT = 8443;
    public static final String CERTIFICATE_FILE = "tls.crt";
    public static final String KEY_FILE = "tls.key";

    private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

    private final HttpsServer server;
    private final DeadlineExecutor executor;

    /**
     * @param address  where to listen (port 0 picks a free one)
     * @param tlsDir   directory holding {@code tls.crt} and {@code tls.key} (PEM)
     * @param client   for looking up a pool's topology (every time: no cache), and the CR-aware serialization
     */
    public WebhookServer(InetSocketAddress address, Path tlsDir, KubernetesClient client)
            throws IOException, GeneralSecurityException {
        this(address, tlsDir, client, WebhookLimits.DEFAULT);
    }

    /**
     * @param limits threads, queue and the per-exchange deadline that keep slow or stalled clients from exhausting
     *               the server (see {@link DeadlineExecutor})
     */
    public WebhookServer(InetSocketAddress address, Path tlsDir, KubernetesClient client, WebhookLimits limits)
            throws IOException, GeneralSecurityException {
        this(address, tlsDir, client, limits, TopologyLookup.NONE);
    }

    /**
     * @param topologies the operator's cached topologies, so that admitting a pool reads no topology from the API
     *                   server in the common case ({@link WorkerPoolValidator})
     */
    public WebhookServer(
            InetSocketAddress address,
            Path tlsDir,
            KubernetesClient client,
            WebhookLimits limits,
            TopologyLookup topologies)
            throws IOException, GeneralSecurityException {
        this(
                address,
                new ReloadingKeyManager(tlsDir.resolve(CERTIFICATE_FILE), tlsDir.resolve(KEY_FILE)),
                client,
                limits,
                topologies);
    }

    /**
     * @param keyManager serves the key pair; it may change the pair between handshakes (the operator's own
     *                   certificate, {@code dev.backstage.operator.certificates.ServingKeyManager})
     */
    public WebhookServer(
            InetSocketAddress address,
            X509ExtendedKeyManager keyManager,
            KubernetesClient client,
            WebhookLimits limits,
            TopologyLookup topologies)
            throws IOException, GeneralSecurityException {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(new KeyManager[] {keyManager}, null, null);
        // Explicit, so the AdmissionReview's object is read as our CR classes even where META-INF/services is lost
        // (e.g. a shaded jar).
        client.getKubernetesSerialization().registerKubernetesResource(BackstageTopology.class);
        client.getKubernetesSerialization().registerKubernetesResource(BackstageWorkerPool.class);
        this.server = HttpsServer.create(address, 32);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        this.executor = new DeadlineExecutor(limits);
        server.setExecutor(executor);
        server.createContext(
                TOPOLOGY_PATH,
                new AdmissionEndpoint(
                        new ValidatingRequestHandler<>(
                                BackstageTopology.class,
                                "BackstageTopology",
                                new TopologyValidator(),
                                new TopologyDeletionCheck(client)::check),
                        client.getKubernetesSerialization()));
        server.createContext(
                POOL_PATH,
                new AdmissionEndpoint(
                        new ValidatingRequestHandler<>(
                                BackstageWorkerPool.class,
                                "BackstageWorkerPool",
                                new WorkerPoolValidator(client, topologies)),
                        client.getKubernetesSerialization()));
    }

    public void start() {
        server.start();
        LOG.info("admission webhook serving {} and {} over HTTPS on port {}", TOPOLOGY_PATH, POOL_PATH, port());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
