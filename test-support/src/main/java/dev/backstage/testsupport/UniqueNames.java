package dev.backstage.testsupport;

import java.util.UUID;

/** Unique broker names per test, so tests share one broker without seeing each other's data. */
public final class UniqueNames {
    private UniqueNames() {}

    public static String prefix(String base) {
        return base + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
