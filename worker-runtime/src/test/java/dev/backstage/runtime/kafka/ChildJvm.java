package dev.backstage.runtime.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A test's worker in a JVM of its own (on the test's classpath), so the test can SIGKILL it
 * ({@code destroyForcibly}): nothing gets a chance to commit or leave the group on the way out. Its stdout lines
 * go to {@code onLine} (on a reader thread), its stderr to {@code target/<logName>}.
 */
final class ChildJvm {
    private ChildJvm() {}

    static Process start(Class<?> main, String logName, Consumer<String> onLine, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(
                List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectError(new File("target/" + logName))
                .start();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = out.readLine()) != null) {
                            onLine.accept(line.trim());
                        }
                    } catch (IOException e) {
                        // The child was killed: its stdout closes. Nothing more to read.
                    }
                },
                "child-jvm-stdout-" + main.getSimpleName());
        reader.setDaemon(true);
        reader.start();
        return process;
    }
}
