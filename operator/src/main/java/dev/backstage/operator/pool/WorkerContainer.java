package dev.backstage.operator.pool;

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

    private WorkerContainer() {}
}
