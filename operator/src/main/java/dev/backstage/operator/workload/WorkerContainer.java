package dev.backstage.operator.workload;

/**
 * The operator's side of the runtime container contract: where the config file is mounted, which env vars
 * carry connection URLs, and where health is served. The runtime's container main reads the same names.
 */
public final class WorkerContainer {
    /** The container's name in the worker pod. */
    public static final String NAME = "worker";

    public static final String CONFIG_DIR = "/etc/backstage";
    public static final String CONFIG_FILE = "runtime.yaml";
    public static final String CONFIG_PATH = CONFIG_DIR + "/" + CONFIG_FILE;
    /** Tells the runtime main where its config file is. */
    public static final String CONFIG_ENV = "BACKSTAGE_CONFIG";

    /** Env vars holding connection URLs, filled from Secrets; runtime.yaml names them in {@code urlEnv}. */
    public static final String PROVIDER_URL_ENV = "BACKSTAGE_PROVIDER_URL";

    public static final String DELAYS_URL_ENV = "BACKSTAGE_DELAYS_URL";
    public static final String DEDUPE_URL_ENV = "BACKSTAGE_DEDUPE_URL";

    /** The pod's name (downward API): the runtime uses it as its consumer name, stable in broker tooling. */
    public static final String POD_NAME_ENV = "POD_NAME";

    /** The runtime serves /healthz, /readyz and /metrics on this port. */
    public static final int HTTP_PORT = 8080;

    public static final String HTTP_PORT_NAME = "http";
    public static final String LIVENESS_PATH = "/healthz";
    public static final String READINESS_PATH = "/readyz";

    /**
     * Added to the pool's shutdown grace to get the pod's terminationGracePeriodSeconds: the runtime needs time
     * after the handlers' grace to flush acks and close connections before the kubelet sends SIGKILL.
     */
    public static final long TERMINATION_MARGIN_SECONDS = 10;

    /** TLS files of a connection are mounted read-only under {@code TLS_DIR/<role>} (provider, delays, dedupe). */
    public static final String TLS_DIR = CONFIG_DIR + "/tls";

    public static final String CA_FILE = "ca.crt";
    public static final String CERT_FILE = "tls.crt";
    public static final String KEY_FILE = "tls.key";
    /** Mode of the mounted TLS files: owner read only. */
    public static final int TLS_FILE_MODE = 0400;
    /**
     * The runtime image's group (docker/runtime.Dockerfile); the pod's fsGroup when TLS files are mounted, so the
     * non-root worker can read them (the kubelet makes Secret files readable by the fsGroup).
     */
    public static final long RUNTIME_GID = 65532;

    private WorkerContainer() {}

    /** Where a connection's TLS files are mounted. */
    public static String tlsDir(String role) {
        return TLS_DIR + "/" + role;
    }

    /**
     * The runtime options naming a connection's TLS files in {@code dir} (see the runtime's {@code BrokerTls}), plus
     * Kafka's {@code tls=true} (its URLs have no TLS scheme), or an empty map without a tls section. The workers get
     * {@link #tlsDir(String)}; the operator a private directory of its own.
     */
    public static java.util.Map<String, String> tlsOptions(
            String dir, dev.backstage.operator.model.TlsSpec tls, dev.backstage.operator.model.ProviderType provider) {
        java.util.Map<String, String> options = new java.util.TreeMap<>();
        if (tls == null) {
            return options;
        }
        if (tls.getCaBundle() != null) {
            options.put(dev.backstage.runtime.spi.BrokerTls.OPT_CA_FILE, dir + "/" + CA_FILE);
        }
        if (tls.getClientCertificateSecret() != null) {
            options.put(dev.backstage.runtime.spi.BrokerTls.OPT_CERT_FILE, dir + "/" + CERT_FILE);
            options.put(dev.backstage.runtime.spi.BrokerTls.OPT_KEY_FILE, dir + "/" + KEY_FILE);
        }
        if (provider == dev.backstage.operator.model.ProviderType.KAFKA) {
            options.put("tls", "true");
        }
        return options;
    }
}
