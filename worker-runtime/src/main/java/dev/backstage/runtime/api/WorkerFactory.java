package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.ConfigurationException;
import java.util.ServiceLoader;

/**
 * Makes the {@link Worker} a {@link Worker.Builder} describes. The runtime's core supplies the one
 * implementation (a {@link ServiceLoader} service), which keeps the package graph one-way: {@code api} declares,
 * {@code core} implements.
 */
public interface WorkerFactory {
    Worker create(WorkerOptions options);

    /** The factory on the class path. */
    static WorkerFactory load() {
        return ServiceLoader.load(WorkerFactory.class, WorkerFactory.class.getClassLoader())
                .findFirst()
                .orElseThrow(() -> new ConfigurationException("no Backstage worker implementation on the class path:"
                        + " add the worker-runtime jar (it provides dev.backstage.runtime.api.WorkerFactory)"));
    }
}
