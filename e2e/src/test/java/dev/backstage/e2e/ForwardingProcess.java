package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;

import dev.backstage.testsupport.ControlPlane;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A command that forwards a local port until stopped ({@code kubectl port-forward}, {@code kubectl backstage
 * console}): started with the cluster's environment, its output (standard output and error together) kept, ready
 * once it says {@code Forwarding from 127.0.0.1:PORT}, stopped (SIGTERM) on close.
 */
final class ForwardingProcess implements AutoCloseable {
    private final Process process;
    private final StringBuffer output = new StringBuffer();

    private ForwardingProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> copy(process.getInputStream()), "forwarding-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code command} and waits until it forwards {@code localPort}; fails with its output if it ends. */
    static ForwardingProcess start(ControlPlane cluster, int localPort, String... command) {
        try {
            ForwardingProcess forwarding = new ForwardingProcess(cluster.processWithCluster(command)
                    .redirectErrorStream(true)
                    .start());
            await("the forward of local port " + localPort)
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        if (!forwarding.process.isAlive()) {
                            throw new AssertionError(String.join(" ", command) + " ended (exit "
                                    + forwarding.process.exitValue() + "): " + forwarding.output());
                        }
                        return forwarding.output().contains("Forwarding from 127.0.0.1:" + localPort);
                    });
            return forwarding;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the command printed so far. */
    String output() {
        return output.toString();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** A local port free at the time of the call. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void copy(InputStream in) {
        byte[] buffer = new byte[4096];
        try (in) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                output.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** SIGTERM, as Ctrl-C would end it; SIGKILL if it is still running 10 s later. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
