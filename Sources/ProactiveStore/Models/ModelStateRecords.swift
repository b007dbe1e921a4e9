import Foundation
import ProactiveCore

// MARK: - Values other stores build

// The model-state values as the PostgreSQL store (module ProactivePostgres) builds them from its rows;
// the SQLite store uses their memberwise initialisers.

extension StoredDonation {
    /// A donation read back with its row id.
    package init(rowID: Int64, donation: Donation) {
        self.init(id: rowID, donation: donation)
    }
}

extension ErasedDonation {
    /// A journal entry: its sequence number, the deleted donation's row id and the donation.
    package init(journalSequence: Int64, rowID: Int64, donation: Donation) {
        self.init(seq: journalSequence, id: rowID, donation: donation)
    }
}

extension ModelStateSummary {
    /// One saved state's line (`models list`).
    package init(user: String, name: String, byteCount: Int, donationCount: Int, trainedAt: Date, savedAt: Date) {
        self.init(user: user, name: name, bytes: byteCount, donationCount: donationCount, trainedAt: trainedAt, savedAt: savedAt)
    }
}
