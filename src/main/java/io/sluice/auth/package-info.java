/**
 * Authentication: the {@link io.sluice.auth.Credentials} a client presents to the Pravega controller
 * ({@link io.sluice.auth.BasicCredentials}, {@link io.sluice.auth.BearerCredentials},
 * {@link io.sluice.auth.OAuth2ClientCredentials} for Keycloak and other OAuth2 servers) and the
 * {@link io.sluice.auth.AccessOperation} a delegation token grants. The delegation tokens themselves are internal: the
 * segment-call layer keeps them fresh (see {@code docs/authentication.md}).
 */
package io.sluice.auth;
