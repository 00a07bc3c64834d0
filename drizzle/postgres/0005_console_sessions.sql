CREATE TABLE "leaf_session" (
	"id" varchar(16) PRIMARY KEY NOT NULL,
	"token_tag" varchar(16) NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"address" varchar(64) NOT NULL,
	"user_agent" varchar(256) NOT NULL,
	"ended_at" bigint
);
