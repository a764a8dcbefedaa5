package dev.backstage.operator.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relative references of a Markdown page that must resolve to a file of the repository: the targets of links and
 * images ({@code [text](path)}, outside code) relative to the page, and code spans that name a benchmark result
 * ({@code `benchmarks/results/<subject>/<file>`}, or {@code `<subject>/<file>`} for a subject folder), relative to
 * the repository root. Web addresses, in-page anchors and code spans with spaces or placeholders are not references.
 */
final class MarkdownLinks {
    static final String RESULTS = "benchmarks/results/";
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern NOT_A_PATH = Pattern.compile("[\\s<>*{}$]");

    private MarkdownLinks() {}

    /** One reference: where it is, what it says, and the path (from the repository root) it must resolve to. */
    record Reference(String where, String text, String path) {
        @Override
        public String toString() {
            return where + ": `" + text + "` (no file " + path + ")";
        }
    }

    /**
     * The references of {@code markdown}, the text of {@code page} (a path from the repository root);
     * {@code subjects} are the folder names under {@link #RESULTS}.
     */
    static List<Reference> references(String page, String markdown, Set<String> subjects) {
        List<Reference> references = new ArrayList<>();
        Path dir = Path.of(page).getParent();
        boolean fenced = false;
        int number = 0;
        for (String line : markdown.split("\n", -1)) {
            number++;
            String trimmed = line.stripLeading();
            if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            String where = page + ":" + number;
            Matcher link = LINK.matcher(SPAN.matcher(line).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (SCHEME.matcher(target).find() || target.startsWith("#")) {
                    continue;
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                Path resolved = dir == null ? Path.of(file) : dir.resolve(file);
                references.add(new Reference(where, target, normal(resolved)));
            }
            Matcher span = SPAN.matcher(line);
            while (span.find()) {
                String text = span.group(1);
                if (NOT_A_PATH.matcher(text).find() || !text.contains("/")) {
                    continue;
                }
                if (text.startsWith(RESULTS)) {
                    references.add(new Reference(where, text, text));
                } else if (subjects.contains(text.substring(0, text.indexOf('/')))) {
                    references.add(new Reference(where, text, RESULTS + text));
                }
            }
        }
        return references;
    }

    /** The references that name no file or folder under {@code root}. */
    static List<Reference> broken(Path root, List<Reference> references) {
        return references.stream()
                .filter(r -> !Files.exists(root.resolve(r.path())))
                .toList();
    }

    private static String normal(Path path) {
        return path.normalize().toString().replace('\\', '/');
    }
}
