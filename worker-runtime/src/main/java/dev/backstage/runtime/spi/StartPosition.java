package dev.backstage.runtime.spi;

/** Where a new topic subscription starts reading. */
public enum StartPosition {
    EARLIEST,
    LATEST
}
