package dev.backstage.operator.docs;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The project's test naming rule and a scanner that finds the test methods of Java sources: methods annotated
 * {@code @Test}, {@code @ParameterizedTest}, {@code @RepeatedTest}, {@code @TestFactory} or {@code @TestTemplate}.
 * The scanner reads the source text (comments, strings and text blocks blanked out first), so it needs no compiled
 * classes and sees every module's tests from the repository root.
 */
final class TestNames {
    /**
     * {@code givenX_whenY_thenZ} or {@code givenX_thenZ}; each part a camelCase phrase, and after the outcome any
     * further {@code _andW}, {@code _butW}, {@code _notW}… clauses that start lower case.
     */
    static final Pattern RULE = Pattern.compile(
            "given[A-Z][A-Za-z0-9]*(_when[A-Z][A-Za-z0-9]*)?_then[A-Z][A-Za-z0-9]*(_[a-z][A-Za-z0-9]*)*");

    private static final Pattern TEST_ANNOTATION = Pattern.compile("@(?:org\\.junit\\.jupiter\\.(?:api|params)\\.)?"
            + "(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)(?![\\w.$])");
    private static final Pattern ANNOTATION_NAME = Pattern.compile("@[\\w.$]+");
    private static final Pattern METHOD_NAME = Pattern.compile("(\\w+)\\s*\\($");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", "node_modules");

    private TestNames() {}

    /** One test method: where it is declared and its name. */
    record TestMethod(Path file, int line, String name) {
        boolean followsTheRule() {
            return RULE.matcher(name).matches();
        }

        @Override
        public String toString() {
            return file + ":" + line + " " + name;
        }
    }

    /** The test methods of every {@code src/test/java} tree under {@code root}, by file and line. */
    static List<TestMethod> inRepository(Path root) throws IOException {
        List<Path> sources = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return SKIPPED_DIRECTORIES.contains(dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String path = root.relativize(file).toString().replace('\\', '/');
                if (path.endsWith(".java") && (path.startsWith("src/test/java/") || path.contains("/src/test/java/"))) {
                    sources.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        List<TestMethod> methods = new ArrayList<>();
        for (Path source : sources.stream().sorted().toList()) {
            methods.addAll(in(root.relativize(source), Files.readString(source)));
        }
        return methods;
    }

    /** The test methods declared in one source text; {@code file} only labels them. */
    static List<TestMethod> in(Path file, String source) {
        String code = blankCommentsAndLiterals(source);
        List<TestMethod> methods = new ArrayList<>();
        Matcher annotation = TEST_ANNOTATION.matcher(code);
        while (annotation.find()) {
            int at = skipAnnotationsAndArguments(code, annotation.end());
            int paren = code.indexOf('(', at);
            if (paren < 0) {
                continue;
            }
            Matcher name = METHOD_NAME.matcher(code.substring(at, paren + 1));
            if (name.find()) {
                int offset = at + name.start(1);
                methods.add(new TestMethod(file, lineOf(code, offset), name.group(1)));
            }
        }
        return methods;
    }

    private static int skipAnnotationsAndArguments(String code, int from) {
        int at = skipArguments(code, from);
        while (true) {
            at = skipWhitespace(code, at);
            Matcher next = ANNOTATION_NAME.matcher(code).region(at, code.length());
            if (!next.lookingAt()) {
                return at;
            }
            at = skipArguments(code, next.end());
        }
    }

    /** Past a balanced {@code (…)} right after {@code from} (whitespace allowed), else {@code from} itself. */
    private static int skipArguments(String code, int from) {
        int at = skipWhitespace(code, from);
        if (at >= code.length() || code.charAt(at) != '(') {
            return from;
        }
        int depth = 0;
        for (int i = at; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i + 1;
            }
        }
        return code.length();
    }

    private static int skipWhitespace(String code, int from) {
        int at = from;
        while (at < code.length() && Character.isWhitespace(code.charAt(at))) {
            at++;
        }
        return at;
    }

    private static int lineOf(String code, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (code.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The source with comments, string, char and text-block literals replaced by spaces; line breaks kept. */
    static String blankCommentsAndLiterals(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? source.length() : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? source.length() : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = closing(source, i + 3, "\"\"\"");
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                end = closing(source, i + 1, String.valueOf(source.charAt(i)));
            } else {
                out.append(source.charAt(i++));
                continue;
            }
            for (int k = i; k < end; k++) {
                out.append(source.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }

    /** Just past the {@code quote} that closes a literal opened before {@code from}, skipping escapes. */
    private static int closing(String source, int from, String quote) {
        for (int i = from; i < source.length(); i++) {
            if (source.charAt(i) == '\\') {
                i++;
            } else if (source.startsWith(quote, i)) {
                return i + quote.length();
            }
        }
        return source.length();
    }
}
