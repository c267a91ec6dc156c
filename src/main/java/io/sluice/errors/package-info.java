/**
 * Exceptions thrown by Sluice: one unchecked root ({@link io.sluice.errors.SluiceException}) and a
 * retriable branch ({@link io.sluice.errors.RetriableException}).
 */
package io.sluice.errors;
