package dev.backstage.runtime.main;

import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.ConnectionFailure;
import dev.backstage.runtime.spi.Redaction;

/**
 * Why a worker could not start, in one line: the failure's reason label ({@link ConnectionFailure}), its message and,
 * for a failure that is not the project's own, the innermost cause (lettuce's "Connection refused", ...); any URL of
 * the configuration is masked, and line breaks become spaces.
 */
final class StartFailure {
    private StartFailure() {}

    static String describe(RuntimeException e, RuntimeConfig config) {
        String reason = ConnectionFailure.label(e);
        String message = String.valueOf(e.getMessage());
        String line = reason.isEmpty() || message.startsWith(reason) ? message : reason + message;
        if (!(e instanceof BackstageException)) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            if (root != e && root.getMessage() != null && !line.contains(root.getMessage())) {
                line = line + ": " + root.getMessage();
            }
            line = e.getClass().getSimpleName() + ": " + line;
        }
        for (RuntimeConfig.Connection c :
                new RuntimeConfig.Connection[] {config.provider(), config.delays(), config.dedupe()}) {
            if (c != null && c.url() != null) {
                line = Redaction.text(line, c.url());
            }
        }
        return line.replaceAll("\\s*\\R\\s*", " ");
    }
}
