package dev.backstage.operator.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The shell commands of a Markdown file's {@code bash}/{@code sh}/{@code shell}/{@code console} code blocks, each
 * with the marker that excuses it from being run.
 *
 * <p>Marker convention: a command's trailing comment starts with a marker, optionally followed by {@code :} and
 * more text ({@code bin/demo   # long-running: the main job}). A comment line that is only a marker applies to
 * every later command of its block. A comment starting with {@code needs} that is not a known marker is an
 * error, so a typo does not silently run (or skip) a command. Lines ending in {@code \} continue the command;
 * a leading {@code $ } prompt is dropped.
 */
final class ReadmeCommands {
    static final List<String> MARKERS = List.of("needs a cluster", "needs a broker", "long-running");
    private static final Set<String> SHELL_LANGUAGES = Set.of("bash", "sh", "shell", "console");

    /**
     * One command.
     *
     * @param marker the marker that excuses it from running, or null when it must run
     * @param error  why its marker comment is not understood, else null
     */
    record Command(String file, int line, String code, String marker, String error) {
        String where() {
            return file + ":" + line;
        }
    }

    /**
     * The commands this test may run unmarked: cheap and side-effect free by construction. Anything else unmarked
     * is refused without being run (a README command such as {@code bin/test} would restart the shared cluster).
     */
    private static final List<java.util.regex.Pattern> RUNNABLE = List.of(
            java.util.regex.Pattern.compile("^(bin/backstage|bin/kubectl-backstage|kubectl-backstage|kubectl backstage)"
                    + "(\\s+[^\\s;&|`$()<>]+)*\\s+(--help|-h)(\\s+[^\\s;&|`$()<>]+)*$"),
            java.util.regex.Pattern.compile("^helm (template|lint|show)(\\s+[^\\s;&|`$()<>]+)+(\\s*>\\s*/dev/null)?$"));

    /** Whether {@code code} is one of the commands that may run unmarked. */
    static boolean runnable(String code) {
        return RUNNABLE.stream().anyMatch(p -> p.matcher(code).matches());
    }

    private ReadmeCommands() {}

    static List<Command> parse(String file, String markdown) {
        List<Command> commands = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        boolean inShellBlock = false;
        boolean inOtherBlock = false;
        String blockMarker = null;
        StringBuilder pending = null;
        int pendingLine = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String trimmed = line.strip();
            if (trimmed.startsWith("```")) {
                if (inShellBlock || inOtherBlock) {
                    inShellBlock = false;
                    inOtherBlock = false;
                    pending = null;
                } else {
                    boolean shell = SHELL_LANGUAGES.contains(
                            trimmed.substring(3).strip().toLowerCase());
                    inShellBlock = shell;
                    inOtherBlock = !shell;
                    blockMarker = null;
                }
                continue;
            }
            if (!inShellBlock) {
                continue;
            }
            if (pending == null) {
                pending = new StringBuilder();
                pendingLine = i + 1;
            }
            if (trimmed.endsWith("\\") && commentStart(trimmed) < 0) {
                pending.append(trimmed.substring(0, trimmed.length() - 1).strip())
                        .append(" ");
                continue;
            }
            pending.append(trimmed);
            String logical = pending.toString().strip();
            pending = null;
            if (logical.startsWith("$ ")) {
                logical = logical.substring(2);
            }
            int hash = commentStart(logical);
            String code = (hash < 0 ? logical : logical.substring(0, hash)).strip();
            String comment = hash < 0 ? null : logical.substring(hash + 1).strip();
            String marker = comment == null ? null : marker(comment);
            String error = comment != null && marker == null && comment.startsWith("needs")
                    ? "unknown marker '# " + comment + "': use one of " + MARKERS
                    : null;
            if (code.isEmpty()) {
                if (marker != null) {
                    blockMarker = marker;
                }
                if (error != null) {
                    commands.add(new Command(file, pendingLine, "", null, error));
                }
                continue;
            }
            commands.add(new Command(file, pendingLine, code, marker != null ? marker : blockMarker, error));
        }
        return commands;
    }

    /** The marker a comment starts with, or null. */
    private static String marker(String comment) {
        for (String m : MARKERS) {
            if (comment.equals(m)
                    || comment.startsWith(m + ":")
                    || comment.startsWith(m + ";")
                    || comment.startsWith(m + ",")
                    || comment.startsWith(m + " ")) {
                return m;
            }
        }
        return null;
    }

    /** Index of the {@code #} that starts a shell comment (at the start or after a blank, outside quotes), or -1. */
    static int commentStart(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                i++;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return i;
            }
        }
        return -1;
    }
}
