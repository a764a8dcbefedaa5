package dev.backstage.operator.admission;

import java.util.ArrayList;
import java.util.List;

/**
 * What admission says about one object: the reasons to deny it (each saying what to set) and warnings that let it
 * through. Collect with {@link #deny} and {@link #warn}; allowed when nothing was denied.
 */
public final class Verdict {
    private final List<String> denials = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    public Verdict deny(String message) {
        denials.add(message);
        return this;
    }

    public Verdict warn(String message) {
        warnings.add(message);
        return this;
    }

    /** Adds another verdict's denials and warnings to this one. */
    public Verdict include(Verdict other) {
        denials.addAll(other.denials);
        warnings.addAll(other.warnings);
        return this;
    }

    public boolean allowed() {
        return denials.isEmpty();
    }

    public List<String> denials() {
        return List.copyOf(denials);
    }

    public List<String> warnings() {
        return List.copyOf(warnings);
    }
}
