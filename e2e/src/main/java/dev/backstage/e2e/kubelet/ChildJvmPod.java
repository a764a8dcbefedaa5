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
 * A container as a child JVM: a main class on a class path that stands in for the container's image (the
 * runtime's container main and the sample task module, or the operator's main). Process.destroy() is SIGTERM, so
 * the graceful shutdown runs exactly as in a pod; {@link #kill()} is SIGKILL. Used by the mock sandbox's
 * {@link LocalKubelet} and by the real cluster's node agent.
 */
public final class ChildJvmPod implements LocalPod {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final String name;
    private final Process process;
    private final int port;

    private ChildJvmPod(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    /** A replica of the mock sandbox: the runtime's container main on this JVM's class path, health on {@code port}. */
    static ChildJvmPod start(String name, Map<String, String> env, int port, Path logFile) {
        Map<String, String> withPort = new java.util.LinkedHashMap<>(System.getenv());
        withPort.putAll(env);
        withPort.put("BACKSTAGE_HTTP_PORT", Integer.toString(port));
        return start(
                name,
                List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
                System.getProperty("java.class.path"),
                "dev.backstage.runtime.main.RuntimeMain",
                List.of(),
                withPort,
                port,
                logFile);
    }

    /**
     * Starts {@code mainClass} with exactly {@code env} as its environment (nothing inherited), appending its
     * output to {@code logFile}; {@code port} is where {@link #ready()} asks {@code /readyz}.
     */
    public static ChildJvmPod start(
            String name,
            List<String> jvmOptions,
            String classPath,
            String mainClass,
            List<String> args,
            Map<String, String> env,
            int port,
            Path logFile) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().clear();
        builder.environment().putAll(env);
        try {
            return new ChildJvmPod(name, builder.start(), port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name, e);
        }
    }

    /** True when {@code GET http://127.0.0.1:port/path} answers 2xx or 3xx within {@code timeout} (an HTTP probe). */
    public static boolean httpProbe(int port, String path, Duration timeout) {
        try {
            HttpResponse<Void> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(timeout)
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() >= 200 && response.statusCode() < 400;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The exit code once the process has exited. */
    public java.util.OptionalInt exitCode() {
        return process.isAlive() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(process.exitValue());
    }

    @Override
    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public boolean ready() {
        return process.isAlive() && httpProbe(port, "/readyz", Duration.ofMillis(500));
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
