package dev.backstage.e2e.kubelet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A replica as a child JVM running the runtime's container main on this JVM's classpath (which holds the
 * runtime and the sample task module in place of the pod's image). Process.destroy() is SIGTERM, so the
 * runtime's graceful shutdown runs exactly as in a pod; {@link #kill()} is SIGKILL.
 */
final class ChildJvmPod implements LocalPod {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final String name;
    private final Process process;
    private final int port;

    private ChildJvmPod(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    static ChildJvmPod start(String name, Map<String, String> env, int port, Path logFile) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1"); // faster start-up for short-lived replicas
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.backstage.runtime.main.RuntimeMain");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(env);
        builder.environment().put("BACKSTAGE_HTTP_PORT", Integer.toString(port));
        try {
            return new ChildJvmPod(name, builder.start(), port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name, e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public boolean ready() {
        if (!process.isAlive()) {
            return false;
        }
        try {
            HttpResponse<Void> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofMillis(500)).build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void terminate(Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
