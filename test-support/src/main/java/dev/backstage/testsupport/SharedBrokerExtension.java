package dev.backstage.testsupport;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Takes the lock {@link UsesSharedBrokers} asks for before a class's first test and releases it after its last. */
public final class SharedBrokerExtension implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(SharedBrokerExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        UsesSharedBrokers uses = testClass.getAnnotation(UsesSharedBrokers.class);
        if (uses == null) {
            return;
        }
        SharedBrokerLock lock = SharedBrokerLock.hold(
                EnumSet.copyOf(List.of(uses.value())), uses.disrupts(), testClass.getSimpleName());
        context.getStore(NAMESPACE).put(testClass, lock);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        SharedBrokerLock lock =
                context.getStore(NAMESPACE).remove(context.getRequiredTestClass(), SharedBrokerLock.class);
        if (lock != null) {
            lock.close();
        }
    }
}
