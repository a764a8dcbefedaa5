package dev.backstage.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.ViolationHandler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads an ArchUnit rule's violations as dependency edges, for the tests that show a package rule reports exactly
 * what a fixture plants (the operator's and the runtime's {@code PackageRulesCatchViolationsTest}). ArchUnit is an
 * optional dependency of this module: the modules that call this have it on their test class path.
 */
public final class ArchViolations {
    private ArchViolations() {}

    /**
     * Each violating dependency as {@code "origin -> target"}, class names relative to {@code root} where they lie
     * below it; fails if the rule reports anything that is not a dependency (an empty layer, a cycle). Prints the
     * failure report, so a test that fails shows what the rule said.
     */
    public static Set<String> dependencies(EvaluationResult result, String root) {
        List<Object> all = new ArrayList<>();
        List<Dependency> dependencies = new ArrayList<>();
        result.handleViolations(new ViolationHandler<Dependency>() {
            @Override
            public void handle(Collection<Dependency> violatingObjects, String message) {
                dependencies.addAll(violatingObjects);
            }
        });
        result.handleViolations(new ViolationHandler<Object>() {
            @Override
            public void handle(Collection<Object> violatingObjects, String message) {
                all.addAll(violatingObjects);
            }
        });
        System.out.println(result.getFailureReport());
        assertEquals(all.size(), dependencies.size(), "only dependencies expected: " + result.getFailureReport());
        Set<String> edges = new TreeSet<>();
        for (Dependency dependency : dependencies) {
            edges.add(relative(dependency.getOriginClass().getName(), root) + " -> "
                    + relative(dependency.getTargetClass().getName(), root));
        }
        return edges;
    }

    private static String relative(String className, String root) {
        return className.startsWith(root + ".") ? className.substring(root.length() + 1) : className;
    }
}
