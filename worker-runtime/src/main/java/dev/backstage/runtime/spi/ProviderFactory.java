package dev.backstage.runtime.spi;

/**
 * Creates a {@link Provider} from neutral settings. Implementations are found with
 * {@link java.util.ServiceLoader} (listed in {@code META-INF/services/dev.backstage.runtime.spi.ProviderFactory}),
 * so the container main, the CLI and the operator create providers by name without knowing them.
 */
public interface ProviderFactory {
    /** {@code redis}, {@code rabbitmq} or {@code kafka}. */
    String name();

    Provider create(ProviderSettings settings);
}
