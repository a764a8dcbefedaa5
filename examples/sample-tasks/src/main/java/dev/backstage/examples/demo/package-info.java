/**
 * The runtime on the local Redis without Kubernetes ({@code RuntimeDemo}): a batch of sample orders enqueued and
 * worked, with a live progress line and a summary. Imports {@code orders} and the runtime's {@code api}, {@code spi},
 * Redis provider and module binder ({@code runtime.main}), as an application would; nothing imports it.
 */
package dev.backstage.examples.demo;
