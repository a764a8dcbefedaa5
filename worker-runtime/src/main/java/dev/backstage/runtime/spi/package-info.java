/**
 * The provider contract: what a broker binding implements ({@link dev.backstage.runtime.spi.Provider} and its
 * capabilities) and the values it carries ({@link dev.backstage.runtime.spi.Delivery},
 * {@link dev.backstage.runtime.spi.TopicDelivery}, their {@link dev.backstage.runtime.spi.Payload},
 * {@link dev.backstage.runtime.spi.OutgoingJob}, {@link dev.backstage.runtime.spi.JobMeta},
 * {@link dev.backstage.runtime.spi.Backoff}, the exceptions). A provider carries settlements out; the core decides
 * them. Imports nothing else of the runtime and names no JSON library ({@code PackageGraphTest}); the operator
 * uses it too.
 */
package dev.backstage.runtime.spi;
