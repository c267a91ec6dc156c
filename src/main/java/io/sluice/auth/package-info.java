/**
 * Authentication: the {@link io.sluice.auth.Credentials} a client presents to the Pravega controller
 * ({@link io.sluice.auth.BasicCredentials}, {@link io.sluice.auth.BearerCredentials},
 * {@link io.sluice.auth.OAuth2ClientCredentials} for Keycloak and other OAuth2 servers), and the
 * {@link io.sluice.auth.DelegationTokenProvider} that keeps the controller's delegation token for a stream fresh for
 * the segment-store wire protocol. See {@code docs/authentication.md}.
 */
package io.sluice.auth;
