package dev.backstage.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The operator of an earlier commit as an image of the local node: {@code bin/pinned-operator} builds that commit's
 * operator once per machine (cached under {@code ~/.cache/backstage/pinned/<commit>}), and the node runs
 * {@code backstage-operator:pinned-<short commit>} from that build while every other tag runs this tree's.
 */
public final class PinnedOperator {
    private static final long BUILD_TIMEOUT_MINUTES = 20;

    private PinnedOperator() {}

    /**
     * Builds (or finds cached) the operator of {@code commit} and registers it on {@code cluster}'s node.
     *
     * @param commit a full commit id of this repository
     * @return the image tag that runs it, {@code pinned-<first 7 characters of the commit>}
     * @throws IllegalStateException when the build fails (its log's path is in the message)
     */
    public static String register(LocalCluster cluster, String commit) {
        String tag = "pinned-" + commit.substring(0, Math.min(7, commit.length()));
        Path classPathFile = build(cluster.root(), commit);
        try {
            String classPath =
                    Files.readString(classPathFile, StandardCharsets.UTF_8).strip();
            cluster.images().registerOperator(tag, classPath);
            return tag;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The chart of {@code commit} (with its {@code crds/}), from {@code git archive} into {@code into}.
     *
     * @return the chart's directory, {@code into/helm/backstage-operator}
     * @throws IllegalStateException when the commit has no chart there
     */
    public static Path chart(LocalCluster cluster, String commit, Path into) {
        try {
            Process archive = new ProcessBuilder(
                            "sh",
                            "-c",
                            "git -C \"$0\" archive \"$1\" helm/backstage-operator | tar -x -C \"$2\"",
                            cluster.root().toString(),
                            commit,
                            into.toString())
                    .inheritIO()
                    .start();
            if (!archive.waitFor(2, TimeUnit.MINUTES) || archive.exitValue() != 0) {
                throw new IllegalStateException("git archive " + commit + " helm/backstage-operator failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while extracting the chart of " + commit, e);
        }
        Path chart = into.resolve("helm/backstage-operator");
        if (!Files.exists(chart.resolve("Chart.yaml"))) {
            throw new IllegalStateException("commit " + commit + " has no helm/backstage-operator/Chart.yaml");
        }
        return chart;
    }

    /** Runs {@code bin/pinned-operator <commit>}, its progress on this JVM's stderr; the class path file it printed. */
    private static Path build(Path root, String commit) {
        try {
            Path printed = Files.createTempFile("pinned-operator", ".out");
            Process process = new ProcessBuilder(
                            root.resolve("bin/pinned-operator").toString(), commit)
                    .directory(root.toFile())
                    .redirectOutput(printed.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            process.getOutputStream().close();
            if (!process.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        "bin/pinned-operator " + commit + " did not finish in " + BUILD_TIMEOUT_MINUTES + " minutes");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("bin/pinned-operator " + commit + " failed (exit " + process.exitValue()
                        + "): see its output above");
            }
            String out = Files.readString(printed, StandardCharsets.UTF_8);
            Files.delete(printed);
            Path file = Path.of(out.strip());
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(
                        "bin/pinned-operator " + commit + " printed '" + out.strip() + "', not a class path file");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the operator of " + commit, e);
        }
    }
}
