package dev.backstage.runtime.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.ArrayList;
import java.util.List;

/**
 * The runtime's package rules, built for a root package: {@link PackageGraphTest} checks them on the runtime's main
 * classes ({@link #RUNTIME_ROOT}) and {@link PackageRulesCatchViolationsTest} on test fixtures that break them on
 * purpose, so the rules the build relies on are shown to fail when a wrong import is put back.
 *
 * <p>The graph: {@code spi} ← {@code api} ← {@code core} ← providers; the providers do not see each other;
 * {@code config} (the runtime.yaml model) sees only {@code spi}; the mains and the CLI sit on top. The provider
 * contract ({@code spi}) carries no Jackson: a provider that hands the core parsed JSON tokens does it through the
 * core's {@code JsonTokens} (a {@code spi.Payload.Parsed}). The one use left is inside {@code spi.schedule}, which
 * validates and normalises a schedule's {@code args} JSON with jackson-databind in private code (shared with the
 * operator, which sees only the {@code spi}); no Jackson type appears in any signature the {@code spi} exposes.
 */
final class RuntimePackageRules {
    static final String RUNTIME_ROOT = "dev.backstage.runtime";

    private RuntimePackageRules() {}

    /** No two top-level packages under {@code root} import each other, directly or through others. */
    static ArchRule packagesFreeOfCycles(String root) {
        return slices().matching(root + ".(*)..").should().beFreeOfCycles();
    }

    static LayeredArchitecture layersPointOneWay(String root) {
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("spi")
                .definedBy(root + ".spi..")
                .layer("api")
                .definedBy(root + ".api..")
                .layer("core")
                .definedBy(root + ".core..")
                .layer("redis")
                .definedBy(root + ".redis..")
                .layer("rabbitmq")
                .definedBy(root + ".rabbitmq..")
                .layer("kafka")
                .definedBy(root + ".kafka..")
                .layer("config")
                .definedBy(root + ".config..")
                .layer("logging")
                .definedBy(root + ".logging..")
                .layer("mains")
                .definedBy(root + ".main..", root + ".cli..")
                .whereLayer("mains")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("redis")
                .mayOnlyBeAccessedByLayers("mains")
                .whereLayer("rabbitmq")
                .mayOnlyBeAccessedByLayers("mains")
                .whereLayer("kafka")
                .mayOnlyBeAccessedByLayers("mains")
                .whereLayer("core")
                .mayOnlyBeAccessedByLayers("redis", "rabbitmq", "kafka", "mains")
                .whereLayer("api")
                .mayOnlyBeAccessedByLayers("core", "redis", "rabbitmq", "kafka", "mains")
                .whereLayer("config")
                .mayOnlyBeAccessedByLayers("mains")
                .whereLayer("logging")
                .mayOnlyBeAccessedByLayers("mains");
    }

    /** The library logs through slf4j-api; the backend (logback, optional) is configured by the mains' set-up only. */
    static ArchRule onlyTheLoggingSetUpSeesTheBackend(String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + "..")
                .and()
                .resideOutsideOfPackage(root + ".logging..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("ch.qos.logback..");
    }

    static ArchRule providerContractDoesNotDependOnJackson(String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + ".spi..")
                .and()
                .resideOutsideOfPackage(root + ".spi.schedule..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("com.fasterxml..")
                .because("the provider contract must not tie providers (or the operator) to a JSON library;"
                        + " parsed tokens go through core.JsonTokens");
    }

    static ArchRule spiSignaturesNameNoJacksonType(String root) {
        return classes().that().resideInAPackage(root + ".spi..").should(exposeNoTypesFrom("com.fasterxml."));
    }

    /** No non-private field, method, constructor or supertype of the class names a type from {@code prefix}. */
    private static ArchCondition<JavaClass> exposeNoTypesFrom(String prefix) {
        return new ArchCondition<>("expose no type from " + prefix + "* in a non-private signature") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                if (type.getModifiers().contains(JavaModifier.PRIVATE)) {
                    return;
                }
                List<JavaType> exposed = new ArrayList<>(type.getInterfaces());
                type.getSuperclass().ifPresent(exposed::add);
                report(type.getFullName(), exposed, prefix, events, type);
                for (JavaMember member : type.getMembers()) {
                    if (member.getModifiers().contains(JavaModifier.PRIVATE)
                            || member.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                        continue;
                    }
                    List<JavaType> types = new ArrayList<>();
                    if (member instanceof JavaField field) {
                        types.add(field.getType());
                    } else if (member instanceof JavaCodeUnit unit) {
                        types.add(unit.getReturnType());
                        types.addAll(unit.getParameterTypes());
                        unit.getThrowsClause().getTypes().forEach(types::add);
                    }
                    report(member.getFullName(), types, prefix, events, type);
                }
            }
        };
    }

    private static void report(
            String where, List<JavaType> types, String prefix, ConditionEvents events, JavaClass owner) {
        for (JavaType t : types) {
            for (JavaClass involved : t.getAllInvolvedRawTypes()) {
                if (involved.getName().startsWith(prefix)) {
                    events.add(SimpleConditionEvent.violated(owner, where + " exposes " + involved.getName()));
                }
            }
        }
    }
}
