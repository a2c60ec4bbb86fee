import Graphiti
import GraphQL

/// Resolves the root fields of the demo schema: the cast is fixed, the reviews
/// live in a `ReviewStore`, which also feeds `reviewAdded`.
struct DemoResolver: Sendable {
    /// Arguments of `hero`.
    struct HeroArguments: Codable, Sendable {
        /// The film whose hero is asked for; nil for the hero of the saga.
        let episode: Episode?
    }

    /// Arguments of `character`.
    struct CharacterArguments: Codable, Sendable {
        /// The character's identifier.
        let id: CharacterID
    }

    /// Arguments of `reviews`.
    struct ReviewsArguments: Codable, Sendable {
        /// The film whose reviews are asked for.
        let episode: Episode
    }

    /// Arguments of `createReview`.
    struct CreateReviewArguments: Codable, Sendable {
        /// The film reviewed.
        let episode: Episode
        /// The rating and comments.
        let review: ReviewInput
    }

    /// Arguments of `reviewAdded`.
    struct ReviewAddedArguments: Codable, Sendable {
        /// The film whose new reviews are followed; nil for every film.
        let episode: Episode?
    }

    /// The ratings `createReview` accepts.
    static let validStars = 0...5

    /// Where reviews are kept.
    let reviews: ReviewStore

    init(reviews: ReviewStore) {
        self.reviews = reviews
    }

    /// `hero(episode:)`: Luke for `EMPIRE`, R2-D2 otherwise.
    func hero(context _: NoContext, arguments: HeroArguments) -> (any StarWarsCharacter)? {
        DemoData.hero(of: arguments.episode)
    }

    /// `character(id:)`: the character with that identifier, or null.
    func character(context _: NoContext, arguments: CharacterArguments) -> (any StarWarsCharacter)? {
        DemoData.character(id: arguments.id)
    }

    /// `reviews(episode:)`: the reviews of a film, oldest first.
    func reviews(context _: NoContext, arguments: ReviewsArguments) -> [Review] {
        reviews.reviews(of: arguments.episode)
    }

    /// `createReview(episode:review:)`: records a review and returns it.
    func createReview(context _: NoContext, arguments: CreateReviewArguments) throws -> Review {
        let input = arguments.review
        guard Self.validStars.contains(input.stars) else {
            throw GraphQLError(message: "stars must be between \(Self.validStars.lowerBound) and \(Self.validStars.upperBound), got \(input.stars).")
        }
        return reviews.addReview(of: arguments.episode, stars: input.stars, commentary: input.commentary)
    }

    /// `reviewAdded(episode:)`: the source stream of the subscription, one
    /// review per `createReview` of that film (of any film without one).
    func reviewAdded(context _: NoContext, arguments: ReviewAddedArguments) -> AsyncStream<Review> {
        reviews.additions(of: arguments.episode)
    }
}
