CREATE TABLE "leaf_claim" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"biz_tag" varchar(128) NOT NULL,
	"first_id" bigint NOT NULL,
	"last_id" bigint NOT NULL,
	"claimed_at" bigint NOT NULL,
	"kind" varchar(16) NOT NULL,
	"claimer" varchar(255) NOT NULL,
	"instance" varchar(64) NOT NULL,
	"serving_first" bigint,
	"leased_max" bigint,
	"tail_ms" bigint NOT NULL,
	"region" integer NOT NULL,
	"regions" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "leaf_claim_tag_instance" ON "leaf_claim" USING btree ("biz_tag","instance","claimed_at");