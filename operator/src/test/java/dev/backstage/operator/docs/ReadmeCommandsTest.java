package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.ControlPlane;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command in the shell code blocks of the README, the other top-level Markdown files, the chart README and
 * every page under {@code docs/} either carries a marker that says why
 * it cannot run here ({@link ReadmeCommands#MARKERS}), or is one of the cheap, side-effect-free commands this test
 * runs ({@link ReadmeCommands#runnable}) and exits 0; an unmarked command of any other kind fails without running. The files are read at test time, so
 * README text merged later is checked too. Commands run from the repository root with bin/ and the fetched helm
 * and kubectl on PATH, the CLI on this test's class path, and every broker and cluster pointed at nothing: an
 * unmarked command that needs one fails instead of touching a shared broker or cluster.
 *
 * <p>{@code -Dbackstage.readmes=a.md,b.md} checks other files (paths from the repository root), e.g. a proposal.
 */
@Tag("slow")
class ReadmeCommandsTest {
    private static final List<String> FIXED_FILES =
            List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "helm/backstage-operator/README.md");
    private static final long TIMEOUT_SECONDS = 300;

    @TempDir
    Path scratch;

    @Test
    void givenEveryMarkdownPage_thenEachCommandRunsOrIsMarked() throws Exception {
        Path root = ControlPlane.repoRoot();
        String configured = System.getProperty("backstage.readmes");
        List<String> files =
                configured == null || configured.isBlank() ? defaultFiles(root) : List.of(configured.split(","));
        List<ReadmeCommands.Command> commands = new ArrayList<>();
        for (String file : files) {
            Path path = root.resolve(file.strip());
            if (Files.exists(path)) {
                commands.addAll(ReadmeCommands.parse(file.strip(), Files.readString(path)));
            } else {
                assertTrue(!file.equals("README.md"), "README.md is missing at " + path);
            }
        }
        assertTrue(commands.stream().anyMatch(c -> !c.code().isEmpty()), "no shell commands found in " + files);

        Map<String, String> env = environment(root);
        List<String> failures = new ArrayList<>();
        Map<String, Integer> marked = new TreeMap<>();
        int ran = 0;
        for (ReadmeCommands.Command command : commands) {
            if (command.error() != null) {
                failures.add(command.where() + ": " + command.error());
                continue;
            }
            if (command.marker() != null) {
                marked.merge(command.marker(), 1, Integer::sum);
                System.out.println("marked  " + command.where() + " [" + command.marker() + "] " + command.code());
                continue;
            }
            if (!ReadmeCommands.runnable(command.code())) {
                failures.add(command.where() + ": `" + command.code() + "` is neither marked nor one of the commands "
                        + "this test runs (--help of bin/backstage / kubectl backstage, helm template|lint|show): mark "
                        + "it with a trailing comment starting with one of " + ReadmeCommands.MARKERS);
                continue;
            }
            ran++;
            Run run = run(root, env, command.code());
            System.out.println("ran     " + command.where() + " exit " + run.exit() + ": " + command.code());
            if (run.exit() != 0) {
                failures.add(command.where() + ": `" + command.code() + "` exited " + run.exit() + ": "
                        + lastLine(run.err().isBlank() ? run.out() : run.err()) + " (fix the command, or mark it: "
                        + "a trailing comment starting with one of " + ReadmeCommands.MARKERS + ")");
            }
        }
        int markedTotal = marked.values().stream().mapToInt(Integer::intValue).sum();
        System.out.println("README commands: " + ran + " run, " + markedTotal + " marked " + marked + ", "
                + failures.size() + " failed; files " + files);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " README command(s) failed or are not understood:\n" + String.join("\n", failures));
    }

    /** The fixed files and every Markdown page under docs/, as paths from the repository root. */
    static List<String> defaultFiles(Path root) throws IOException {
        List<String> files = new ArrayList<>(FIXED_FILES);
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (java.util.stream.Stream<Path> pages = Files.walk(docs)) {
                pages.filter(p -> p.toString().endsWith(".md"))
                        .map(p -> root.relativize(p).toString().replace('\\', '/'))
                        .sorted()
                        .forEach(files::add);
            }
        }
        return files;
    }

    /** What the commands see: bin/ and helm/kubectl on PATH, the CLI classes, no broker and no cluster. */
    private Map<String, String> environment(Path root) throws Exception {
        Run tools = run(root, Map.of(), "source bin/lib.sh && ensure_kube_tools && dirname \"$HELM\"");
        assertEquals(0, tools.exit(), "helm/kubectl could not be fetched: " + tools.err());
        String toolDir = lastLine(tools.out());
        Map<String, String> env = new TreeMap<>();
        env.put(
                "PATH",
                root.resolve("bin") + ":" + toolDir + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("BACKSTAGE_CLI_CLASSPATH", System.getProperty("java.class.path"));
        env.put("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:1");
        env.put("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:1");
        env.put("BACKSTAGE_KAFKA_BOOTSTRAP", "127.0.0.1:1");
        env.put("KUBECONFIG", scratch.resolve("no-cluster-kubeconfig").toString());
        env.put("HELM_CACHE_HOME", root.resolve(".tools/helm-cache").toString());
        env.put("HELM_CONFIG_HOME", scratch.resolve("helm-config").toString());
        env.put("HELM_DATA_HOME", scratch.resolve("helm-data").toString());
        return env;
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(Path root, Map<String, String> env, String script) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).directory(root.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            return new Run(124, "", "did not finish in " + TIMEOUT_SECONDS + " s (mark it # long-running)");
        }
        return new Run(process.exitValue(), out.join(), err.join());
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String lastLine(String text) {
        List<String> lines = text.strip().lines().toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    @Test
    void givenAMarkdownPage_whenParsed_thenShellCommandsTheirMarkersAndBadMarkersAreFound() {
        String markdown = """
                Text with `inline --code` is not a block.
                ```bash
                bin/backstage --help                 # prints usage
                bin/demo                             # long-running: the main job
                bin/backstage enqueue t '{"a":"#1"}' # needs a broker
                helm template x helm/backstage-operator \\
                  --set a=b
                bin/thing                            # needs the moon
                ```
                ```java
                int notACommand = 1;
                ```
                ```
                layout/   not a shell block
                ```
                ```sh
                # needs a cluster
                $ helm install x y
                kubectl get bwp
                ```
                """;
        List<ReadmeCommands.Command> commands = ReadmeCommands.parse("T.md", markdown);
        assertEquals(
                List.of(
                        "bin/backstage --help",
                        "bin/demo",
                        "bin/backstage enqueue t '{\"a\":\"#1\"}'",
                        "helm template x helm/backstage-operator --set a=b",
                        "bin/thing",
                        "helm install x y",
                        "kubectl get bwp"),
                commands.stream().map(ReadmeCommands.Command::code).toList());
        assertNull(commands.get(0).marker());
        assertEquals("long-running", commands.get(1).marker());
        assertEquals("needs a broker", commands.get(2).marker());
        assertNull(commands.get(3).marker());
        assertEquals(6, commands.get(3).line());
        assertNotNull(commands.get(4).error(), "a marker that is not known is an error");
        assertEquals("needs a cluster", commands.get(5).marker());
        assertEquals("needs a cluster", commands.get(6).marker(), "a marker line covers the rest of its block");
        assertTrue(ReadmeCommands.runnable("bin/backstage --help"));
        assertTrue(ReadmeCommands.runnable("bin/backstage dead-letters list -h"));
        assertTrue(ReadmeCommands.runnable("kubectl backstage --help"));
        assertTrue(ReadmeCommands.runnable("helm template x helm/backstage-operator --set a=b > /dev/null"));
        for (String unsafe : List.of(
                "bin/test",
                "bin/test --help",
                "bin/demo --help",
                "bin/backstage enqueue t '{}'",
                "bin/backstage --help; bin/test",
                "helm install x y",
                "kubectl apply -f crds/",
                "mvn -B test",
                "bin/backstage --help && rm -rf x",
                "helm template x $(bin/test)")) {
            assertTrue(!ReadmeCommands.runnable(unsafe), unsafe + " must not run unmarked");
        }
    }
}
