/**
 * Testing tools: a JUnit 5 extension that runs an embedded Sluice server, in memory on free ports, for a test class
 * or for each test, and hands the test a {@link io.sluice.client.SluiceClient}, the server or its controller URI, and
 * a fresh scope when a test asks for one. {@code junit-jupiter-api} is an optional dependency of Sluice: add it (as
 * every JUnit 5 project has) to use this package.
 *
 * <pre>{@code
 * @SluiceTest
 * class OrdersTest {
 *     @SluiceInject SluiceClient client;
 *
 *     @Test
 *     void writesAnOrder(@TestScope String scope) {
 *         client.streamManager().createStream(scope, "orders", StreamConfiguration.builder().build());
 *         ...
 *     }
 * }
 * }</pre>
 */
package io.sluice.testing;
