package dev.backstage.e2e.kubelet;

import java.time.Duration;

/** One running replica of a Deployment on this machine. */
public interface LocalPod {
    String name();

    /** True once the runtime answers 200 on /readyz. */
    boolean ready();

    boolean alive();

    /** SIGTERM, then SIGKILL after {@code grace} if it has not exited (what the kubelet does). */
    void terminate(Duration grace);

    /** SIGKILL now: a crash, for chaos tests. */
    void kill();
}
