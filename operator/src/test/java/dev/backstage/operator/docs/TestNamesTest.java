package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.docs.TestNames.TestMethod;
import dev.backstage.testsupport.ControlPlane;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every test method of every module is named {@code givenX_whenY_thenZ} (or {@code givenX_thenZ} when there is no
 * action), as CONTRIBUTING.md says; the rule is {@link TestNames#RULE}.
 */
class TestNamesTest {
    @Test
    void givenEveryModulesTestSources_thenEveryTestMethodFollowsTheNamingRule() throws Exception {
        Path root = ControlPlane.repoRoot();
        List<TestMethod> methods = TestNames.inRepository(root);
        for (String module : List.of("test-support", "worker-runtime", "operator", "e2e")) {
            assertTrue(
                    methods.stream().anyMatch(m -> m.file().startsWith(module)),
                    "no test method found under " + module + "/src/test/java: the scanner missed them");
        }
        List<TestMethod> offenders =
                methods.stream().filter(m -> !m.followsTheRule()).toList();
        assertEquals(
                List.of(),
                offenders,
                offenders.size() + " of " + methods.size()
                        + " test methods break the rule " + TestNames.RULE + "; rename them givenX_whenY_thenZ:\n"
                        + offenders.stream().map(TestMethod::toString).collect(Collectors.joining("\n")));
    }

    @Test
    void givenSourceWithTestsInEveryShape_whenScanned_thenEachTestMethodIsFoundWithItsLine_andNothingElse() {
        String source = String.join(
                "\n",
                "class Sample {",
                "    @Test",
                "    void parsesUrl() {",
                "        String s = \"@Test void notAMethod() {\";",
                "    }",
                "    // @Test void commentedOut() {}",
                "    @ParameterizedTest(name = \"{0} (x)\")",
                "    @CsvSource(textBlock = \"\"\"",
                "        a | void inTheTextBlock(",
                "        \"\"\")",
                "    void givenRows_thenEachIsChecked(String row) {",
                "    }",
                "    @Test public void givenOneLine_whenRead_thenItsNameIsFound() {}",
                "    @TestFactory",
                "    Stream<DynamicTest> givenCamelWhenFactoryThenFound() { return null; }",
                "    @org.junit.jupiter.api.RepeatedTest(3) @Timeout(5)",
                "    void givenARepeat_thenItIsFound_andItsClauseAllowed() {}",
                "    void notATest() {}",
                "}");

        List<TestMethod> found = TestNames.in(Path.of("Sample.java"), source);

        assertEquals(
                List.of(
                        "Sample.java:3 parsesUrl",
                        "Sample.java:11 givenRows_thenEachIsChecked",
                        "Sample.java:13 givenOneLine_whenRead_thenItsNameIsFound",
                        "Sample.java:15 givenCamelWhenFactoryThenFound",
                        "Sample.java:17 givenARepeat_thenItIsFound_andItsClauseAllowed"),
                found.stream().map(TestMethod::toString).toList());
        assertEquals(
                List.of("parsesUrl", "givenCamelWhenFactoryThenFound"),
                found.stream()
                        .filter(m -> !m.followsTheRule())
                        .map(TestMethod::name)
                        .toList());
    }
}
