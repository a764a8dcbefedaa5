package dev.backstage.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Metric names as a process exposes them (Prometheus text from its {@code /metrics}) and as the chart's Grafana
 * dashboards query them, so a test can prove that every documented or charted name is really exported.
 */
public final class MetricNames {
    /** A PromQL identifier; names inside label matchers and strings are found too, which only widens the check. */
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    /** A dashboard query: {@code "expr": "..."} in the JSON (escaped quotes allowed). */
    private static final Pattern EXPR = Pattern.compile("\"(?:expr|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** Where the chart ships its dashboards, from the repository root. */
    public static final String DASHBOARDS = "helm/backstage-operator/dashboards";

    private MetricNames() {}

    /** The sample names of a Prometheus text exposition ({@code # HELP}/{@code # TYPE} lines skipped). */
    public static Set<String> exposed(String exposition) {
        Set<String> names = new TreeSet<>();
        exposition.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(line -> {
            Matcher m = IDENTIFIER.matcher(line);
            if (m.lookingAt()) {
                names.add(m.group());
            }
        });
        return names;
    }

    /** Every identifier starting with {@code prefix} in the queries of the chart's dashboards. */
    public static Set<String> inDashboards(String prefix) {
        Path dir = repositoryRoot().resolve(DASHBOARDS);
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                Matcher expr = EXPR.matcher(Files.readString(file));
                while (expr.find()) {
                    Matcher id = IDENTIFIER.matcher(expr.group(1));
                    while (id.find()) {
                        if (id.group().startsWith(prefix)) {
                            names.add(id.group());
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboards in " + dir, e);
        }
        return names;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(DASHBOARDS))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no " + DASHBOARDS + " above " + Path.of("").toAbsolutePath());
    }
}
