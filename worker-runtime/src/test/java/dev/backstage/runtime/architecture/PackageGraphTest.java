package dev.backstage.runtime.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime's package graph is one-way: {@code spi} ← {@code api} ← {@code core} ← providers; the providers do
 * not see each other; {@code config} (the runtime.yaml model) sees only {@code spi}; the mains and the CLI sit on
 * top. Checked on the compiled classes, so a new import that points the wrong way fails the build.
 *
 * <p>The provider contract ({@code spi}) carries no Jackson: a provider that hands the core parsed JSON tokens
 * does it through the core's {@code JsonTokens} (a {@code spi.Payload.Parsed}). The one use left is inside {@code spi.schedule}, which
 * validates and normalises a schedule's {@code args} JSON with jackson-databind in private code (shared with the
 * operator, which sees only the {@code spi}); no Jackson type appears in any signature the {@code spi} exposes.
 */
class PackageGraphTest {
    private static final JavaClasses RUNTIME = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.backstage.runtime");

    @Test
    void givenThePackageLayers_thenTheirDependenciesPointOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("spi")
                .definedBy("dev.backstage.runtime.spi..")
                .layer("api")
                .definedBy("dev.backstage.runtime.api..")
                .layer("core")
                .definedBy("dev.backstage.runtime.core..")
                .layer("redis")
                .definedBy("dev.backstage.runtime.redis..")
                .layer("rabbitmq")
                .definedBy("dev.backstage.runtime.rabbitmq..")
                .layer("kafka")
                .definedBy("dev.backstage.runtime.kafka..")
                .layer("config")
                .definedBy("dev.backstage.runtime.config..")
                .layer("logging")
                .definedBy("dev.backstage.runtime.logging..")
                .layer("mains")
                .definedBy("dev.backstage.runtime.main..", "dev.backstage.runtime.cli..")
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
                .mayOnlyBeAccessedByLayers("mains")
                .check(RUNTIME);
    }

    /** The library logs through slf4j-api; the backend (logback, optional) is configured by the mains' set-up only. */
    @Test
    void givenTheRuntimeClasses_thenOnlyTheLoggingSetUpSeesTheBackend() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses()
                .that()
                .resideOutsideOfPackage("dev.backstage.runtime.logging..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("ch.qos.logback..")
                .check(RUNTIME);
    }

    @Test
    void givenTheProviderContract_thenItDoesNotDependOnJackson() {
        noClasses()
                .that()
                .resideInAPackage("dev.backstage.runtime.spi..")
                .and()
                .resideOutsideOfPackage("dev.backstage.runtime.spi.schedule..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("com.fasterxml..")
                .because("the provider contract must not tie providers (or the operator) to a JSON library;"
                        + " parsed tokens go through core.JsonTokens")
                .check(RUNTIME);
    }

    @Test
    void givenTheSpiSignatures_thenNoneMentionsJackson() {
        classes()
                .that()
                .resideInAPackage("dev.backstage.runtime.spi..")
                .should(exposeNoTypesFrom("com.fasterxml."))
                .check(RUNTIME);
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
