package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.BackstageException;

/** A task name was registered twice on one worker; each name must map to exactly one handler. */
public final class DuplicateTaskException extends BackstageException {
    public DuplicateTaskException(String taskName) {
        super("task '" + taskName + "' is already registered on this worker; register each task name once");
    }
}
