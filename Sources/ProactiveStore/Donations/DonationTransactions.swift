import ProactiveCore

// MARK: - Write transactions, whatever the database

/// A database's write transactions as the donation stores' shared algorithms use them: one
/// transaction for a caller's appends (`inOneTransaction`) and one commit for the batches of
/// several callers (`appendEach(batches:)`, the group commit). Each backend conforms once (the
/// SQLite store and the PostgreSQL one), so the algorithms are written once, here.
///
/// ```swift
/// struct Transactions: DonationTransactions { ... }   // the backend's transaction, savepoint, appender
/// public func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [...] {
///     try Transactions(database: database).appendEach(batches: batches)
/// }
/// ```
package protocol DonationTransactions {
    /// The open transaction (SQLite: GRDB's `Database`; PostgreSQL: the session holding the writer lock).
    associatedtype Transaction
    /// What appends inside a transaction (each `append` in a savepoint of its own: all or nothing).
    associatedtype Appender: DonationAppender

    /// Runs `body` in one writing transaction: committed when it returns, rolled back when it
    /// throws (its error passes unchanged).
    func inWriteTransaction<Result>(_ body: (Transaction) throws -> Result) throws -> Result

    /// Runs `body` in a savepoint of `transaction`: kept when it returns, rolled back alone when it
    /// throws (its error passes unchanged; the transaction goes on).
    func inSavepoint<Result>(of transaction: Transaction, _ body: () throws -> Result) throws -> Result

    /// The appender that writes inside `transaction`.
    func appender(in transaction: Transaction) -> Appender

    /// Writes one batch inside the savepoint the group commit's second attempt opened for it
    /// (`appendEach(batches:)`); what `appendEach(prepared:)` would answer. The default is the
    /// appender's `appendEach(prepared:)`.
    func appendAlone(_ batch: PreparedDonations, with appender: Appender) throws(StoreError) -> [Swift.Result<Bool, StoreError>]

    /// The database's error as a `StoreError` naming `operation` ("appending 5 donations");
    /// a `StoreError` passes unchanged.
    func storeError(_ error: any Error, while operation: String) -> StoreError

    /// Whether a batch refused with `error` means that no batch of the group can be stored now
    /// (SQLite: a full disk, which rolls the whole transaction back; PostgreSQL: the server gone):
    /// the group commit then throws it rather than try each batch alone.
    func refusesEveryBatch(_ error: StoreError) -> Bool
}

extension DonationTransactions {
    package func appendAlone(_ batch: PreparedDonations, with appender: Appender) throws(StoreError) -> [Swift.Result<Bool, StoreError>] {
        try appender.appendEach(prepared: batch)
    }

    /// `DonationStore.inOneTransaction`: runs `body` with an appender in one writing transaction;
    /// everything it appended is stored when it returns, nothing when it throws.
    /// - Throws: what `body` throws, unchanged; the database's error (as a `StoreError`) when the
    ///   transaction cannot be begun or committed.
    package func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result {
        var bodyError: (any Error)?
        do {
            return try inWriteTransaction { transaction in
                do { return try body(appender(in: transaction)) } catch {
                    bodyError = error
                    throw error  // rolls the transaction back
                }
            }
        } catch {
            if let bodyError { throw bodyError }
            throw storeError(error, while: "committing a transaction")
        }
    }

    /// `DonationStore.appendEach(batches:)`, the group commit: several prepared batches in one
    /// writing transaction, one commit for the batches of concurrent callers. Per batch, in order:
    /// what `appendEach(prepared:)` answers, or why the batch failed.
    ///
    /// The batches are first written one after the other without savepoints (a savepoint per batch
    /// costs: SQLite copies every index page the batch changes into its statement journal;
    /// docs/PERFORMANCE.md). A batch can only fail on what the store refuses after encoding
    /// (recording paused, a CHECK) or on I/O; then the whole transaction is rolled back and the
    /// batches are written again, each in a savepoint of its own (`appendAlone`), which answers
    /// exactly as if that had been the only way: a batch that fails is rolled back alone and
    /// answered with its error, the others are stored.
    /// - Throws: when the transaction cannot be begun or committed (then nothing is stored), or a
    ///   batch's error that `refusesEveryBatch` (nothing is retried).
    package func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Swift.Result<[Swift.Result<Bool, StoreError>], StoreError>] {
        if batches.isEmpty { return [] }
        var refused: StoreError?
        do {
            return try inWriteTransaction { transaction in
                let appender = appender(in: transaction)
                return try batches.map { batch in
                    do { return .success(try appender.appendEach(prepared: batch)) } catch {
                        refused = storeError(error, while: "appending \(batch.donations.count) donations")
                        throw error  // rolls the transaction back
                    }
                }
            }
        } catch {
            guard let refused else { throw storeError(error, while: "committing \(batches.count) batches of donations") }
            if refusesEveryBatch(refused) { throw refused }
            return try appendEachInSavepoints(batches)
        }
    }

    /// `appendEach(batches:)` with each batch in a savepoint: a batch that fails is rolled back alone.
    private func appendEachInSavepoints(_ batches: [PreparedDonations]) throws(StoreError)
        -> [Swift.Result<[Swift.Result<Bool, StoreError>], StoreError>] {
        do {
            return try inWriteTransaction { transaction in
                let appender = appender(in: transaction)
                return try batches.map { batch in
                    do {
                        return .success(try inSavepoint(of: transaction) { () throws(StoreError) in try appendAlone(batch, with: appender) })
                    } catch {
                        let refused = storeError(error, while: "appending \(batch.donations.count) donations")
                        if refusesEveryBatch(refused) { throw refused }  // no later batch can be stored either
                        return .failure(refused)
                    }
                }
            }
        } catch {
            throw storeError(error, while: "committing \(batches.count) batches of donations")
        }
    }
}
