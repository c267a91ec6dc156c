/**
 * What the embedded controller and the embedded segment store share about authorization: the
 * {@link io.sluice.server.auth.AccessLevel} a principal or token grants, and the
 * {@link io.sluice.server.auth.DelegationTokens} the controller signs and the segment store verifies. Both
 * {@code io.sluice.server} (the segment store) and {@code io.sluice.server.controller} use this package, which uses
 * neither; {@code docs/security.md} describes the tokens.
 */
package io.sluice.server.auth;
