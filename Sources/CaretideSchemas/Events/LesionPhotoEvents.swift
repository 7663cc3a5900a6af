public import Foundation

/// Where on the body a skin photo was taken: a fixed list, coarse enough that a patient picks the same site again
/// months later, fine enough that two photos of one site show the same moles. Paired sites take a side.
public enum BodySite: String, Sendable, Codable, CaseIterable {
    case scalp, face, neck, chest, abdomen, upperBack, lowerBack, genitalArea
    case ear, shoulder, upperArm, forearm, hand, buttock, thigh, knee, lowerLeg, foot

    /// Whether the site is one of a left and right pair (an arm) rather than on the midline (the back).
    public var isPaired: Bool {
        switch self {
        case .scalp, .face, .neck, .chest, .abdomen, .upperBack, .lowerBack, .genitalArea: false
        case .ear, .shoulder, .upperArm, .forearm, .hand, .buttock, .thigh, .knee, .lowerLeg, .foot: true
        }
    }
}

/// The side of a paired body site, as the patient sees their own body (their left).
public enum BodySide: String, Sendable, Codable, CaseIterable {
    case left, right
}

/// A skin photo was stored (`caretide.photos`): ids, the site and a short-lived signed link a service client with
/// the `photos:classify` scope can fetch the image from. Never the pixels.
public struct LesionPhotoRecorded: EventPayload {
    public static let eventType = EventType.lesionPhotoRecorded
    public var photoID: UUID
    public var bodySite: BodySite
    public var side: BodySide?
    public var takenAt: Date
    /// The media type the link answers in (a HEIF photo is stored as JPEG).
    public var mediaType: String
    public var width: Int
    public var height: Int
    /// Absolute when the operator set `PHOTO_LINK_BASE_URL`, else a path on ingest-service.
    public var imageURL: String
    public var linkExpiresAt: Date

    public init(
        photoID: UUID, bodySite: BodySite, side: BodySide?, takenAt: Date, mediaType: String, width: Int, height: Int, imageURL: String,
        linkExpiresAt: Date
    ) {
        self.photoID = photoID
        self.bodySite = bodySite
        self.side = side
        self.takenAt = takenAt
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.imageURL = imageURL
        self.linkExpiresAt = linkExpiresAt
    }

    enum CodingKeys: String, CodingKey {
        case photoID = "photoId"
        case imageURL = "imageUrl"
        case bodySite, side, takenAt, mediaType, width, height, linkExpiresAt
    }
}

/// A skin photo and its bytes were deleted (`caretide.photos`): a classifier drops what it holds of it.
public struct LesionPhotoDeleted: EventPayload {
    public static let eventType = EventType.lesionPhotoDeleted
    public var photoID: UUID
    public var deletedAt: Date

    public init(photoID: UUID, deletedAt: Date) {
        self.photoID = photoID
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case photoID = "photoId"
        case deletedAt
    }
}

/// An outside classifier's answer about a skin photo (`caretide.photo-classifications`, keyed by patient id): the
/// model that answered and its probability of melanoma. scoring-service refuses (dead-letters) an answer from a model
/// its operator has not registered, about a photo it does not know, or with a probability outside 0–1.
public struct LesionPhotoClassified: EventPayload {
    public static let eventType = EventType.lesionPhotoClassified
    public var photoID: UUID
    public var model: String
    public var modelVersion: String
    public var melanomaProbability: Double
    public var classifiedAt: Date

    public init(photoID: UUID, model: String, modelVersion: String, melanomaProbability: Double, classifiedAt: Date) {
        self.photoID = photoID
        self.model = model
        self.modelVersion = modelVersion
        self.melanomaProbability = melanomaProbability
        self.classifiedAt = classifiedAt
    }

    enum CodingKeys: String, CodingKey {
        case photoID = "photoId"
        case model, modelVersion, melanomaProbability, classifiedAt
    }
}
