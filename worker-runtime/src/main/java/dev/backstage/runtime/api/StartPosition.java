package dev.backstage.runtime.api;

/** Where a new topic subscription starts reading. */
public enum StartPosition {
    EARLIEST,
    LATEST
}
